package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// Reuse keeps one running cluster for the runs given it (Options.Reuse),
// so that runs on a real cluster do not each pay its start (13-65 s) and
// stop. Each run gets topics, a group and transactional ids of its own
// (Fresh), so nothing of one run is read by the next. The cluster is
// reused while the run asks for the same provider, broker count, broker
// configuration and proxies (a run with a fault on the clients' proxies
// gets a cluster that has them), the run ended with no harness error (a
// failed heal, say, may leave a cluster that looks healthy and is not as it
// was), and the cluster is healthy after the run and before the next. One
// a run left unhealthy (a broker down, a network fault in force) is
// repaired: its brokers that are down resumed or restarted and its network
// healed, as far as the provider's hooks allow; one still unhealthy then
// is stopped and another started. The topics of a run that held and is
// not kept are deleted after it (cluster.TopicDeleter). A run that is kept names the cluster's
// directory (its broker logs) in cluster.txt. Close stops the last one.
//
// One Reuse serves one run at a time.
type Reuse struct {
	// Root is where the clusters' directories go; "" means the runs root.
	Root string
	// Name is their parent directory under Root ("" means "clusters").
	Name string
	// HealthBound is how long the cluster may take to be healthy before
	// a run (after the last one's heals) and after it, and again after a
	// repair, before it is replaced; 0 means 30 s.
	HealthBound time.Duration
	// HealBudget, when set, is how long the heal of a fault kind may need
	// to leave the cluster healthy (a power loss of every broker needs
	// long): after a run the cluster is given the longest budget of the
	// run's kinds, if longer than HealthBound, before it is repaired.
	HealBudget func(kind string) time.Duration

	mu       sync.Mutex
	prov     cluster.Provider
	key      string
	dir      string
	served   []string // the current cluster's run directories
	stale    error    // why the cluster must not serve another run; nil while it may
	replaced error    // why the current cluster's predecessor was stopped
	runs     int      // runs given a cluster so far (names their topics)
	started  int
	repaired int
}

func (r *Reuse) healthBound() time.Duration {
	if r.HealthBound > 0 {
		return r.HealthBound
	}
	return 30 * time.Second
}

// Started is how many clusters the Reuse has started.
func (r *Reuse) Started() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// Repaired is how many times the Reuse repaired a cluster a run had left
// unhealthy, instead of replacing it.
func (r *Reuse) Repaired() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.repaired
}

// Fresh is s with names of its own for its run on the shared cluster: the
// topics (and the key map's), the consumer group and the transactional id
// get the suffix "-r<N>". The saved scenario carries them, so a replay on
// a fresh cluster is the same run.
func (r *Reuse) Fresh(s generators.Scenario) generators.Scenario {
	r.mu.Lock()
	r.runs++
	suffix := fmt.Sprintf("-r%d", r.runs)
	r.mu.Unlock()
	rename := func(t string) string {
		if t == "" {
			return ""
		}
		return t + suffix
	}
	m := make(map[string]generators.TopicPartition, len(s.Keys.Map))
	for k, tp := range s.Keys.Map {
		tp.Topic = rename(tp.Topic)
		m[k] = tp
	}
	s.Keys.Topic, s.Keys.OutputTopic, s.Keys.Map = rename(s.Keys.Topic), rename(s.Keys.OutputTopic), m
	s.Workload.Group = rename(s.Workload.Group)
	s.Producer.TransactionalID = rename(s.Producer.TransactionalID)
	return s
}

// acquire is a healthy running cluster for s with s's topics created:
// the current one when it fits s, else a new one from prov (not started).
func (r *Reuse) acquire(ctx context.Context, s generators.Scenario, prov cluster.Provider, runDir string, runsDir string) (cluster.Provider, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	spec := ClusterSpec(s, runDir)
	key := reuseKey(s)
	if r.prov != nil {
		if why := r.unfitLocked(ctx, key); why != nil {
			r.stopLocked(ctx)
			r.replaced = why
		}
	}
	if r.prov == nil {
		dir, err := r.makeDir(runsDir)
		if err != nil {
			return nil, err
		}
		spec.RunID, spec.RunDir = filepath.Base(dir), dir
		if err := prov.Start(ctx, spec); err != nil {
			prov.Stop(context.Background())
			return nil, fmt.Errorf("starting cluster %s: %w", prov.Name(), err)
		}
		r.prov, r.key, r.dir, r.served = prov, key, dir, nil
		r.started++
	} else if err := r.prov.CreateTopics(ctx, spec.Topics...); err != nil {
		r.stale = fmt.Errorf("creating a run's topics: %w", err)
		return nil, fmt.Errorf("creating the run's topics on the reused cluster %s: %w", r.dir, err)
	}
	r.served = append(r.served, runDir)
	return r.prov, writeClusterNote(runDir, r.prov.Name(), r.dir, len(r.served), r.replaced)
}

// release checks the cluster after a run of s that ended with harness
// error herr. One the run may have left other than it found it (herr: a
// heal that failed, a fault that could not start, a harness that lost
// track; or a fault whose heal cannot undo all it did, such as moved
// clocks), or left unhealthy and could not be repaired, is replaced at the
// next acquire, not now: by then the run's directory is gone unless kept,
// which decides whether the cluster's directory is kept.
func (r *Reuse) release(ctx context.Context, s generators.Scenario, herr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prov == nil {
		return
	}
	if herr != nil {
		r.stale = fmt.Errorf("a run on it ended with a harness error: %w", herr)
	} else if kind := outlived(s); kind != "" {
		r.stale = fmt.Errorf("a run on it had a %s fault, whose heal cannot undo all it did", kind)
	} else if err := r.restoreLocked(ctx, r.boundAfter(s)); err != nil {
		r.stale = fmt.Errorf("a run left it unhealthy: %w", err)
	}
}

// unfitLocked is why the current cluster cannot serve a run whose reuse
// key is key, or nil when it can.
func (r *Reuse) unfitLocked(ctx context.Context, key string) error {
	switch {
	case r.stale != nil:
		return r.stale
	case r.key != key:
		return errors.New("the next run asks for another cluster")
	}
	if err := r.restoreLocked(ctx, r.healthBound()); err != nil {
		return fmt.Errorf("unhealthy before the next run: %w", err)
	}
	return nil
}

// outlived is the kind of a fault of s whose heal cannot undo all it did
// (generators.Kind.Outlives), or "": after one the cluster is unlike a
// fresh one.
func outlived(s generators.Scenario) string {
	for _, f := range s.Nemesis {
		if k, _ := generators.LookupKind(f.Kind); k.Outlives() != "" {
			return f.Kind
		}
	}
	return ""
}

// retire deletes the topics of a run of s that is not kept, so that the
// next runs' faults act on their own partitions alone and the health
// checks judge those; a kept run's topics stay beside its broker logs,
// for whoever reads them. A cluster that cannot delete them is replaced.
func (r *Reuse) retire(ctx context.Context, s generators.Scenario) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.prov.(cluster.TopicDeleter)
	if r.prov == nil || r.stale != nil || !ok {
		return
	}
	var names []string
	for _, t := range ClusterSpec(s, "").Topics {
		names = append(names, t.Name)
	}
	if err := d.DeleteTopics(ctx, names...); err != nil {
		r.stale = fmt.Errorf("deleting the topics of a run on it: %w", err)
	}
}

// boundAfter is how long the cluster may take to be healthy after a run
// of s: HealthBound, or the longest HealBudget of s's kinds.
func (r *Reuse) boundAfter(s generators.Scenario) time.Duration {
	bound := r.healthBound()
	if r.HealBudget == nil {
		return bound
	}
	for _, f := range s.Nemesis {
		bound = max(bound, r.HealBudget(f.Kind))
	}
	return bound
}

// restoreLocked waits up to bound for the cluster to be healthy; one that
// is not is repaired and given bound again. Health decides: a hook that
// failed on what was not broken does not fail the repair. It returns why
// the cluster is still unhealthy.
func (r *Reuse) restoreLocked(ctx context.Context, bound time.Duration) error {
	if waitHealthy(ctx, r.prov, bound) == nil {
		return nil
	}
	rerr := repair(ctx, r.prov)
	if err := waitHealthy(ctx, r.prov, bound); err != nil {
		return errors.Join(fmt.Errorf("after its repair: %w", err), rerr)
	}
	r.repaired++
	return nil
}

// repair undoes what faults may have left in force, with the hooks prov
// has: every broker down is resumed, then restarted if still down, and
// every network fault (partitions, link cuts, proxy toxics) is lifted.
// Each hook call is bounded as a heal is.
func repair(ctx context.Context, prov cluster.Provider) error {
	ctx, cancel := context.WithTimeout(ctx, nemesis.HealTimeout)
	defer cancel()
	var errs []error
	if p, ok := prov.(cluster.NodePauser); ok {
		for _, id := range downNodes(prov) {
			errs = append(errs, p.Resume(ctx, id))
		}
	}
	for _, id := range downNodes(prov) {
		switch h := prov.(type) {
		case cluster.NodeKiller:
			errs = append(errs, h.Restart(ctx, id))
		case cluster.NodeStopper:
			errs = append(errs, h.StartNode(ctx, id))
		default:
			errs = append(errs, fmt.Errorf("node %d is down and %s cannot restart it", id, prov.Name()))
		}
	}
	if h, ok := prov.(cluster.Partitioner); ok {
		errs = append(errs, h.Heal(ctx))
	}
	if h, ok := prov.(cluster.NetworkHealer); ok {
		errs = append(errs, h.HealAll(ctx))
	}
	if h, ok := prov.(cluster.Proxier); ok {
		errs = append(errs, h.HealToxics(ctx))
	}
	return errors.Join(errs...)
}

// downNodes are the brokers prov says are down.
func downNodes(prov cluster.Provider) []int32 {
	var out []int32
	for _, n := range prov.Nodes() {
		if !n.Up {
			out = append(out, n.ID)
		}
	}
	return out
}

// Close stops the current cluster. Its directory is removed unless a kept
// run points at it.
func (r *Reuse) Close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopLocked(ctx)
}

func (r *Reuse) stopLocked(ctx context.Context) error {
	if r.prov == nil {
		return nil
	}
	err := r.prov.Stop(ctx)
	if !slices.ContainsFunc(r.served, exists) {
		err = errors.Join(err, os.RemoveAll(r.dir))
		os.Remove(filepath.Dir(r.dir)) // the clusters' directory, if now empty
	}
	r.prov, r.key, r.dir, r.served, r.stale, r.replaced = nil, "", "", nil, nil, nil
	return err
}

func (r *Reuse) makeDir(runsDir string) (string, error) {
	root := r.Root
	if root == "" {
		root = RunsRoot(runsDir)
	}
	name := r.Name
	if name == "" {
		name = "clusters"
	}
	return MakeRunDir(root, name, time.Now())
}

// reuseKey is what a cluster must share with a run to serve it: the
// provider and the spec it starts from (ClusterSpec, where the run's fault
// kinds ask for proxies, lazy disks, movable clocks, replication proxies,
// a dynamic quorum), but for the run's own names and directory.
func reuseKey(s generators.Scenario) string {
	spec := ClusterSpec(s, "")
	spec.RunID, spec.RunDir, spec.Topics = "", "", nil
	return fmt.Sprintf("%s %+v", s.Cluster.Provider, spec) // fmt prints BrokerConfigs' keys sorted
}

// waitHealthy waits up to bound for prov to be whole; a provider without
// a health check counts as whole.
func waitHealthy(ctx context.Context, prov cluster.Provider, bound time.Duration) error {
	hc, ok := prov.(cluster.HealthChecker)
	if !ok {
		return nil
	}
	if _, err := nemesis.WaitHealthy(ctx, hc, bound); err != nil {
		return fmt.Errorf("not healthy within %v: %w", bound, err)
	}
	return nil
}

// clusterNote is the file naming a reused cluster in a run's directory,
// clusterNoteDir the words before the cluster's directory on its first
// line, and clusterNoteReplaced those before why the cluster that served
// the runs before was stopped, on a second line of the first run on a new
// one.
const (
	clusterNote         = "cluster.txt"
	clusterNoteDir      = "its broker logs and data: "
	clusterNoteReplaced = "the previous cluster was replaced: "
)

// writeClusterNote says in the run's directory which cluster served it.
func writeClusterNote(runDir, provider, clusterDir string, nth int, replaced error) error {
	text := fmt.Sprintf("run %d on a reused %s cluster; %s%s\n", nth, provider, clusterNoteDir, clusterDir)
	if replaced != nil && nth == 1 {
		text += fmt.Sprintf("%s%v\n", clusterNoteReplaced, replaced)
	}
	return os.WriteFile(filepath.Join(runDir, clusterNote), []byte(text), 0o644)
}

// ClusterDir is the directory holding the broker logs and data of the
// cluster that served the run in runDir: the reused cluster's that
// cluster.txt names, else runDir itself (a cluster of its own).
func ClusterDir(runDir string) string {
	b, err := os.ReadFile(filepath.Join(runDir, clusterNote))
	if err != nil {
		return runDir
	}
	first, _, _ := strings.Cut(string(b), "\n")
	_, dir, ok := strings.Cut(strings.TrimSpace(first), clusterNoteDir)
	if !ok || dir == "" {
		return runDir
	}
	return dir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
