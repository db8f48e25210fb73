package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/embedded"
)

// TestReuseRunsOnOneCluster: runs given one Reuse share its cluster while
// they ask for the same brokers, each on topics and a group of its own,
// and each holds; a run asking for another broker count gets another
// cluster; Close stops the last and removes the clusters' directories, as
// no run was kept.
func TestReuseRunsOnOneCluster(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := &Reuse{}
	opts := Options{RunsDir: root, TestName: t.Name(), Reuse: r}
	var topics []string
	for i, brokers := range []int{3, 3, 1} {
		s := smallScenario()
		s.Cluster.Brokers = brokers
		s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = brokers, 1
		out, err := Run(context.Background(), s, opts)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !out.Held || out.Stats.OpsByType["send ok"] == 0 {
			t.Fatalf("run %d: held %v, ops %v", i, out.Held, out.Stats.OpsByType)
		}
		topics = append(topics, out.Scenario.Keys.Topic)
		if out.Scenario.Workload.Group == smallScenario().Workload.Group {
			t.Fatalf("run %d kept the scenario's group %q on a shared cluster", i, out.Scenario.Workload.Group)
		}
		if want := []int{1, 1, 2}[i]; r.Started() != want {
			t.Fatalf("after run %d: %d clusters started, want %d", i, r.Started(), want)
		}
	}
	if topics[0] == topics[1] || topics[1] == topics[2] {
		t.Fatalf("runs shared a topic: %v", topics)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "clusters")); !os.IsNotExist(err) {
		t.Fatalf("the clusters' directory outlived Close with no run kept: %v", err)
	}
}

// TestReuseReplacesAnUnhealthyCluster: a cluster left unhealthy by a run
// (here a broker killed and never restarted) is stopped and replaced before
// the next run, and a kept run's cluster.txt names the directory of the
// cluster it ran on, which Close then keeps.
func TestReuseReplacesAnUnhealthyCluster(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := &Reuse{HealthBound: time.Second}
	opts := Options{RunsDir: root, TestName: t.Name(), Reuse: r, Keep: true}
	first, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cur := r.prov.(*embedded.Provider)
	if err := cur.Kill(context.Background(), cur.Nodes()[0].ID); err != nil {
		t.Fatal(err)
	}
	r.release(context.Background()) // what a run that left it so ends with
	second, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Started() != 2 || !second.Held {
		t.Fatalf("%d clusters started (want 2: the unhealthy one replaced), second run held %v", r.Started(), second.Held)
	}
	dir := ClusterDir(first.Dir)
	if dir == first.Dir {
		t.Fatalf("ClusterDir of a reused run is the run's own directory %s: want the cluster's", dir)
	}
	if own := t.TempDir(); ClusterDir(own) != own {
		t.Fatalf("ClusterDir of a run with a cluster of its own is %s, want %s", ClusterDir(own), own)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("cluster.txt of a kept run names %s, which is gone: %v", dir, err)
	}
}
