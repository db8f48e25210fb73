package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
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

// TestReuseRepairsAClusterLeftUnhealthy: a cluster a run left unhealthy
// (a broker killed and another paused, never brought back) is repaired
// before the next run, which runs on it and holds; no other is started.
func TestReuseRepairsAClusterLeftUnhealthy(t *testing.T) {
	t.Parallel()
	r := &Reuse{HealthBound: time.Second}
	opts := Options{RunsDir: t.TempDir(), TestName: t.Name(), Reuse: r, Keep: true}
	first, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cur := r.prov.(*embedded.Provider)
	if err := cur.Kill(context.Background(), cur.Nodes()[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := cur.Pause(context.Background(), cur.Nodes()[1].ID); err != nil {
		t.Fatal(err)
	}
	r.release(context.Background(), smallScenario(), nil) // what a run that left it so ends with
	second, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatalf("the run after the repair: %v", err)
	}
	if r.Started() != 1 || r.Repaired() != 1 || !second.Held {
		t.Fatalf("%d clusters started, %d repaired (want 1 and 1), second run held %v", r.Started(), r.Repaired(), second.Held)
	}
	if ClusterDir(second.Dir) != ClusterDir(first.Dir) {
		t.Fatalf("the second run ran on %s, not the repaired cluster %s", ClusterDir(second.Dir), ClusterDir(first.Dir))
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// stuckCluster is an embedded cluster whose brokers, once killed, cannot
// be restarted.
type stuckCluster struct{ *embedded.Provider }

func (stuckCluster) Restart(context.Context, int32) error {
	return errors.New("the node will not start")
}

// TestReuseReplacesAnUnhealthyCluster: a cluster left unhealthy by a run
// that cannot be repaired (here a broker killed that will not start) is
// stopped and replaced before the next run, and a kept run's cluster.txt
// names the directory of the cluster it ran on, which Close then keeps.
func TestReuseReplacesAnUnhealthyCluster(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := &Reuse{HealthBound: time.Second}
	provs := Providers{"embedded": func() (cluster.Provider, error) { return stuckCluster{embedded.New()}, nil }}
	opts := Options{RunsDir: root, TestName: t.Name(), Reuse: r, Keep: true, Providers: provs}
	first, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cur := r.prov.(stuckCluster)
	if err := cur.Kill(context.Background(), cur.Nodes()[0].ID); err != nil {
		t.Fatal(err)
	}
	r.release(context.Background(), smallScenario(), nil) // what a run that left it so ends with
	second, err := Run(context.Background(), smallScenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Started() != 2 || r.Repaired() != 0 || !second.Held {
		t.Fatalf("%d clusters started, %d repaired (want 2 and 0: the unhealthy one replaced), second run held %v",
			r.Started(), r.Repaired(), second.Held)
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

// servedCluster is an embedded cluster that says which of the test's
// clusters it is whenever a run asks it for its brokers, and whose kill
// fault fails as the test says: "heal" restarts the node but reports the
// restart failed (the cluster is healthy, the heal is not verified),
// "start" refuses the kill; "topics" refuses a run's topics.
type servedCluster struct {
	*embedded.Provider
	id    int
	fail  *atomic.Value // "heal", "start" or ""
	asked func(id int)
}

func (c *servedCluster) Bootstrap() string {
	c.asked(c.id)
	return c.Provider.Bootstrap()
}

func (c *servedCluster) Kill(ctx context.Context, node int32) error {
	if c.fail.Load() == "start" {
		return errors.New("kill refused")
	}
	return c.Provider.Kill(ctx, node)
}

func (c *servedCluster) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	if c.fail.Load() == "topics" {
		return errors.New("topics refused")
	}
	return c.Provider.CreateTopics(ctx, topics...)
}

func (c *servedCluster) Restart(ctx context.Context, node int32) error {
	if err := c.Provider.Restart(ctx, node); err != nil || c.fail.Load() != "heal" {
		return err
	}
	return errors.New("the restarted node's log could not be verified")
}

// TestReuseNeverHandsOnAClusterAfterAHarnessError: a run that ended with a
// failed heal, or with another harness error (a fault that could not
// start, its topics not made), leaves a cluster the next run does not get,
// healthy as it looks: the next run's clients are given the brokers of a
// newly started cluster. A run that ended cleanly hands its cluster on.
func TestReuseNeverHandsOnAClusterAfterAHarnessError(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var made int
	var asked []int // the clusters whose brokers the current run was given
	fail := &atomic.Value{}
	fail.Store("")
	provs := Providers{"embedded": func() (cluster.Provider, error) {
		mu.Lock()
		defer mu.Unlock()
		made++
		return &servedCluster{Provider: embedded.New(), id: made, fail: fail, asked: func(id int) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, id)
		}}, nil
	}}
	r := &Reuse{HealthBound: 5 * time.Second}
	opts := Options{RunsDir: t.TempDir(), TestName: t.Name(), Reuse: r, Providers: provs}
	defer r.Close(context.Background())
	kill := []generators.Fault{{Kind: generators.KindKill, Start: generators.Duration(300 * time.Millisecond),
		Duration: generators.Duration(500 * time.Millisecond), Params: generators.FaultParams{Nodes: []int32{2}}}}
	served := func(name, failing string, faults []generators.Fault, wantErr string) int {
		t.Helper()
		mu.Lock()
		asked = nil
		mu.Unlock()
		fail.Store(failing)
		s := smallScenario()
		s.Nemesis = faults
		_, err := Run(context.Background(), s, opts)
		if (wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Fatalf("%s: err = %v, want one naming %q", name, err, wantErr)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) == 0 || slices.Min(asked) != slices.Max(asked) {
			t.Fatalf("%s: its clients were given the brokers of clusters %v, want one", name, asked)
		}
		return asked[0]
	}
	healFailed := served("a run whose heal failed", "heal", kill, "could not be healed")
	afterHeal := served("the run after it", "", nil, "")
	if afterHeal == healFailed {
		t.Fatalf("the run after a failed heal ran on the same cluster (%d)", healFailed)
	}
	startFailed := served("a run whose kill could not start", "start", kill, "kill refused")
	if startFailed != afterHeal {
		t.Fatalf("a cluster a clean run left healthy was not handed on: %d, then %d", afterHeal, startFailed)
	}
	afterStart := served("the run after it", "", nil, "")
	if afterStart == startFailed {
		t.Fatalf("the run after a harness error ran on the same cluster (%d)", startFailed)
	}
	fail.Store("topics")
	if _, err := Run(context.Background(), smallScenario(), opts); err == nil || !strings.Contains(err.Error(), "topics refused") {
		t.Fatalf("a run whose topics the cluster refused: %v", err)
	}
	if next := served("the run after it", "", nil, ""); next == afterStart {
		t.Fatalf("the run after one whose topics were refused ran on the same cluster (%d)", afterStart)
	}
	if r.Started() != 4 {
		t.Fatalf("%d clusters started, want 4", r.Started())
	}
}

// A run's cluster is given the longest heal budget of its kinds, when
// longer than HealthBound, to be healthy again before it is repaired.
func TestReuseGivesARunsHealsTheirBudget(t *testing.T) {
	budget := map[string]time.Duration{generators.KindPowerLoss: 3 * time.Minute, generators.KindKill: time.Second}
	r := &Reuse{HealthBound: 10 * time.Second, HealBudget: func(kind string) time.Duration { return budget[kind] }}
	s := smallScenario()
	s.Nemesis = []generators.Fault{{Kind: generators.KindKill}}
	if got := r.boundAfter(s); got != 10*time.Second {
		t.Errorf("after a kill: %v, want HealthBound", got)
	}
	s.Nemesis = append(s.Nemesis, generators.Fault{Kind: generators.KindPowerLoss})
	if got := r.boundAfter(s); got != 3*time.Minute {
		t.Errorf("after a power loss: %v, want its budget", got)
	}
}

// deletingCluster is an embedded cluster that records the topics a run
// asks it to delete, and refuses when refuse is set.
type deletingCluster struct {
	*embedded.Provider
	mu      *sync.Mutex
	deleted *[]string
	refuse  bool
}

func (c deletingCluster) DeleteTopics(_ context.Context, topics ...string) error {
	if c.refuse {
		return errors.New("deletion refused")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.deleted = append(*c.deleted, topics...)
	return nil
}

// TestReuseDeletesTheTopicsOfRunsNotKept: a run that held and is not kept
// leaves no topic behind on the shared cluster; a kept run's topics stay
// for whoever reads its broker logs; a cluster that cannot delete them is
// not handed on.
func TestReuseDeletesTheTopicsOfRunsNotKept(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var deleted []string
	provs := Providers{"embedded": func() (cluster.Provider, error) {
		return deletingCluster{embedded.New(), &mu, &deleted, false}, nil
	}}
	r := &Reuse{}
	defer r.Close(context.Background())
	run := func(keep bool) Outcome {
		t.Helper()
		out, err := Run(context.Background(), smallScenario(),
			Options{RunsDir: t.TempDir(), TestName: t.Name(), Reuse: r, Keep: keep, Providers: provs})
		if err != nil || !out.Held {
			t.Fatalf("run: held %v, %v", out.Held, err)
		}
		return out
	}
	done := run(false)
	if want := done.Scenario.Keys.Topic; !slices.Equal(deleted, []string{want}) {
		t.Fatalf("after a run not kept, deleted %v, want its topic %s", deleted, want)
	}
	run(true)
	if len(deleted) != 1 {
		t.Fatalf("a kept run's topics were deleted: %v", deleted)
	}
	if r.Started() != 1 {
		t.Fatalf("%d clusters started, want 1", r.Started())
	}
	r.prov = deletingCluster{r.prov.(deletingCluster).Provider, &mu, &deleted, true}
	run(false)
	next := run(true) // kept, so its cluster.txt stays
	if r.Started() != 2 {
		t.Fatalf("%d clusters started after a refused deletion, want 2: one that cannot delete is replaced", r.Started())
	}
	note, err := os.ReadFile(filepath.Join(next.Dir, clusterNote))
	if err != nil || !strings.Contains(string(note), clusterNoteReplaced+"deleting the topics") || ClusterDir(next.Dir) == next.Dir {
		t.Fatalf("the first run on the new cluster says %q (%v): want the cluster's directory and why the last one was replaced", note, err)
	}
}

// TestReuseReplacesAClusterAfterAFaultItsHealCannotUndo: after a run with
// moved clocks the cluster is not handed on, healthy as it may look: the
// brokers keep the wall-clock times they took while their clocks were off.
func TestReuseReplacesAClusterAfterAFaultItsHealCannotUndo(t *testing.T) {
	skewed := smallScenario()
	skewed.Nemesis = []generators.Fault{{Kind: generators.KindClockSkew, Start: generators.Duration(time.Second), Duration: generators.Duration(time.Second)}}
	killed := smallScenario()
	killed.Nemesis = []generators.Fault{{Kind: generators.KindKill, Start: generators.Duration(time.Second), Duration: generators.Duration(time.Second)}}
	if outlived(skewed) != generators.KindClockSkew || outlived(killed) != "" {
		t.Fatalf("outlived: clock-skew %q, kill %q; want %q, \"\"", outlived(skewed), outlived(killed), generators.KindClockSkew)
	}
	r := &Reuse{prov: embedded.New()}
	r.release(context.Background(), skewed, nil)
	if r.stale == nil || !strings.Contains(r.stale.Error(), generators.KindClockSkew) {
		t.Fatalf("a cluster whose clocks were moved is handed on to the next run (why not: %v)", r.stale)
	}
}
