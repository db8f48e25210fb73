package embedded

import (
	"context"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Health follows the node faults: a killed or paused node makes the
// cluster unhealthy, naming the node, and its heal makes it whole again.
// Each hook returned nil only after checking its effect.
func TestEmbeddedHealthFollowsNodeFaults(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 4})
	ctx := context.Background()
	if err := e.Healthy(ctx); err != nil {
		t.Fatalf("fresh cluster: %v", err)
	}
	if err := e.Kill(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.Healthy(ctx); err == nil || !strings.Contains(err.Error(), "node 1 is killed") {
		t.Fatalf("with node 1 killed: %v", err)
	}
	if err := e.Restart(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if hits := e.nodes[2].paused.Hits(); hits < 1 {
		t.Fatalf("pause returned before a request was held (hits %d)", hits)
	}
	if err := e.Healthy(ctx); err == nil || !strings.Contains(err.Error(), "node 2 is paused") {
		t.Fatalf("with node 2 paused: %v", err)
	}
	if err := e.Resume(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := e.Healthy(ctx); err != nil {
		t.Fatalf("after restart and resume: %v", err)
	}
}

// The checks behind the hooks fail when the effect is missing: a listener
// still open is no kill, a partition whose epoch did not move saw no
// election.
func TestEmbeddedChecksCatchMissingEffects(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 2})
	ctx := context.Background()
	if err := verifyRefused(ctx, e.nodes[0].addr); err == nil {
		t.Fatal("a listening node passed as killed")
	}
	if err := verifyAnswers(ctx, e.nodes[0].addr); err != nil {
		t.Fatalf("a live node: %v", err)
	}
	before := epochs(e.Fake(), []string{"t"})
	if err := verifyBumped(before, before); err == nil || !strings.Contains(err.Error(), "t/0") {
		t.Fatalf("unchanged epochs: %v", err)
	}
	if err := e.ShuffleLeaders(ctx); err != nil {
		t.Fatal(err)
	}
	if err := verifyBumped(before, epochs(e.Fake(), []string{"t"})); err != nil {
		t.Fatalf("after a shuffle: %v", err)
	}
	if err := e.MoveLeader(ctx, "t", 0, 2); err != nil {
		t.Fatal(err)
	}
	if l, _ := e.Leader(ctx, "t", 0); l != 2 {
		t.Fatalf("moved t/0 to 2, leader is %d", l)
	}
}
