package realbroker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// fake is a 3-broker kfake cluster and an admin of it: the requests are the
// same as against real brokers, minus DescribeQuorum, which the providers'
// own tests cover.
func fake(t *testing.T) *Admin {
	t.Helper()
	kc, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	a, err := NewAdmin(kc.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func TestWaitReadyAndTopics(t *testing.T) {
	a := fake(t)
	ctx := context.Background()
	if err := a.WaitReady(ctx, 20*time.Second, 3, "test", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateTopics(ctx, 3, cluster.TopicSpec{Name: "in", Partitions: 2, MinInsyncReplicas: 2}); err != nil {
		t.Fatal(err)
	}
	for p := range int32(2) {
		if l, err := a.Leader(ctx, "in", p); err != nil || l < 0 {
			t.Errorf("leader of in/%d: %d, %v", p, l, err)
		}
	}
	if _, err := a.Leader(ctx, "in", 5); err == nil || !strings.Contains(err.Error(), "in/5 does not exist") {
		t.Errorf("leader of a missing partition: %v", err)
	}
	err := a.CreateTopics(ctx, 3, cluster.TopicSpec{Name: "in", Partitions: 2})
	if err == nil || !strings.Contains(err.Error(), `creating topic "in"`) {
		t.Errorf("creating an existing topic: %v", err)
	}
}

func TestWaitReadyStopsWhenANodeExits(t *testing.T) {
	a := fake(t)
	died := errors.New("node 2 exited (status 1) during startup")
	began := time.Now()
	if err := a.WaitReady(context.Background(), time.Minute, 3, "test", func() error { return died }); err != died {
		t.Fatalf("err %v, want %v", err, died)
	}
	if time.Since(began) > 5*time.Second {
		t.Errorf("took %s to notice the exit", time.Since(began))
	}
}

func TestWaitReadyTimesOutNamingTheStep(t *testing.T) {
	a := fake(t)
	err := a.WaitReady(context.Background(), 2*time.Second, 4, "test", func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "stuck at metadata") || !strings.Contains(err.Error(), "3 of 4 brokers") {
		t.Errorf("err %v, want it stuck at metadata with 3 of 4 brokers", err)
	}
}

func TestWaitListening(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	ctx := context.Background()
	if err := WaitListening(ctx, kc.ListenAddrs()[0], time.Second, func() error { return nil }); err != nil {
		t.Errorf("listening broker: %v", err)
	}
	gone := errors.New("exited again")
	if err := WaitListening(ctx, "127.0.0.1:1", time.Minute, func() error { return gone }); err != gone {
		t.Errorf("dead node: %v", err)
	}
	err = WaitListening(ctx, "127.0.0.1:1", 300*time.Millisecond, func() error { return nil })
	if !errors.Is(err, ErrNotListening) || !strings.Contains(err.Error(), "not listening on 127.0.0.1:1") {
		t.Errorf("closed port: %v", err)
	}
	tail := func() string { return "ERROR storage locked" }
	if got := tailed(err, tail).Error(); !strings.HasSuffix(got, "log tail:\nERROR storage locked") {
		t.Errorf("timed-out wait without the log tail: %s", got)
	}
	if got := tailed(gone, tail); got != gone {
		t.Errorf("an exit's error (its tail already in it) = %v", got)
	}
}

// The coordinator of a group and of a transactional id is a broker of the
// cluster; kfake answers FindCoordinator at every version the client speaks.
func TestCoordinatorNamesABroker(t *testing.T) {
	a := fake(t)
	for _, kind := range []cluster.CoordinatorKind{cluster.CoordinatorGroup, cluster.CoordinatorTxn} {
		id, err := a.Coordinator(t.Context(), kind, "kafkachaos-queue-0")
		if err != nil || id < 0 || id > 2 {
			t.Errorf("coordinator kind %d: node %d, %v; want one of kfake's nodes 0..2", kind, id, err)
		}
	}
}
