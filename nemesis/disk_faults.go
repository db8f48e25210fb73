package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// TargetReplicas names every replica of the watched partition: a
// correlated power loss of one partition's copies.
const TargetReplicas Target = "replicas"

// replicaLister is the hook TargetReplicas needs (cluster.Reassigner has it).
type replicaLister interface {
	Replicas(ctx context.Context, topic string, partition int32) ([]int32, error)
}

// PowerLoss kills target's brokers and discards their disks' unsynced
// writes at Start (cluster.DiskFaulter), and starts them again at Stop.
// It is fired once every picked broker is seen down, its losses recorded.
func PowerLoss(df cluster.DiskFaulter, k cluster.NodeKiller, tg Targeting, target Target) Fault {
	return &powerLoss{df: df, k: k, tg: tg, target: target}
}

type powerLoss struct {
	df     cluster.DiskFaulter
	k      cluster.NodeKiller
	tg     Targeting
	target Target

	nodes []int32 // down, to start again
	diskRecord
}

// diskRecord is what a disk fault's ops and results.json say of it: its
// op detail and the evidence of each firing and heal.
type diskRecord struct {
	record
	evidence []string
}

// Evidence is what showed each firing and heal, for results.json.
func (r *diskRecord) Evidence() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evidence)
}

func (f *powerLoss) Name() string                 { return "power-loss" }
func (f *powerLoss) Events() (start, stop string) { return "power-loss", "power-loss-heal" }

func (f *powerLoss) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nodes != nil {
		return nil
	}
	d, nodes, err := f.tg.opening(ctx, string(f.target), f.pick)
	f.detail = d
	if err != nil {
		return err
	}
	f.nodes = nodes // even on error: Stop starts whatever went down
	losses, err := f.df.PowerLoss(ctx, nodes)
	d["losses"] = losses
	if err != nil {
		return err
	}
	if up := upAmong(f.tg.Provider, nodes); len(up) > 0 {
		return fmt.Errorf("power loss of %v: nodes %v still up", nodes, up)
	}
	var bytes int64
	for _, l := range losses {
		bytes += l.Bytes
	}
	d["discarded-bytes"] = bytes
	d["verified"] = "every node down (JVM gone), its disk unmounted, restored to its synced state and mounted again"
	f.evidence = append(f.evidence, fmt.Sprintf("power loss of %v: down; unsynced writes discarded: %+v", nodes, losses))
	return nil
}

func (f *powerLoss) pick(ctx context.Context) ([]int32, error) {
	if f.target != TargetReplicas {
		return f.tg.pick(ctx, f.target)
	}
	rl, ok := f.tg.Provider.(replicaLister)
	if !ok {
		return nil, fmt.Errorf("cluster provider %q cannot list a partition's replicas", f.tg.Provider.Name())
	}
	return rl.Replicas(ctx, f.tg.Topic, f.tg.Partition)
}

// Stop starts every node the power loss took down, together; Restart
// returns once each is listening and registered again.
func (f *powerLoss) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nodes == nil {
		return nil
	}
	// All at once: after a correlated loss no node can register until a
	// quorum of controllers is back, so one restart waited on alone would
	// wait for the others.
	errs := make([]error, len(f.nodes))
	var wg sync.WaitGroup
	for i, n := range f.nodes {
		wg.Go(func() { errs[i] = f.k.Restart(ctx, n) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	f.detail["heal-verified"] = "every node restarted: listening and registered in the metadata again"
	f.evidence = append(f.evidence, fmt.Sprintf("restarted %v", f.nodes))
	f.nodes = nil
	return nil
}

// upAmong is the nodes of ids the provider lists as up.
func upAmong(p cluster.Provider, ids []int32) []int32 {
	var up []int32
	for _, n := range p.Nodes() {
		if n.Up && slices.Contains(ids, n.ID) {
			up = append(up, n.ID)
		}
	}
	return up
}

// DiskReactionWait bounds how long a disk fault's Start waits for the
// broker to show that it met the failing disk.
const DiskReactionWait = 20 * time.Second

// DiskFault fails target's disk (one broker) as mode says for the window
// (cluster.DiskFaulter). Start returns once the broker's log shows it
// reacting, or after DiskReactionWait; the op says which, with how many
// disk operations failed. Stop clears the fault and starts the broker
// again if it shut down.
func DiskFault(df cluster.DiskFaulter, tg Targeting, target Target, mode string) Fault {
	return &diskFault{df: df, tg: tg, target: target, mode: mode, wait: DiskReactionWait}
}

type diskFault struct {
	df     cluster.DiskFaulter
	tg     Targeting
	target Target
	mode   string
	wait   time.Duration // for the broker's reaction

	node   int32
	active bool
	diskRecord
}

func (f *diskFault) Name() string                 { return "disk-fault" }
func (f *diskFault) Events() (start, stop string) { return "disk-fault", "disk-fault-heal" }

func (f *diskFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active {
		return nil
	}
	d, nodes, err := f.tg.opening(ctx, string(f.target), f.tg.Pick(f.target))
	d["mode"] = f.mode
	f.detail = d
	if err != nil {
		return err
	}
	f.node = nodes[0]
	d["nodes"] = nodes[:1]
	f.active = true // even on error: Stop clears whatever was set
	if err := f.df.FailDisk(ctx, f.node, f.mode); err != nil {
		return err
	}
	reaction := f.awaitReaction(ctx)
	failed := f.df.DiskFailures(f.node)
	d["failed-ops"], d["reaction"] = failed, reaction
	switch {
	case reaction != "":
		d["verified"] = "the broker's log shows it met the failing disk"
	case failed > 0:
		d["verified"] = fmt.Sprintf("%d disk operations failed; no reaction in the broker's log within %s", failed, f.wait)
	case ctx.Err() != nil: // the step's own deadline came first
		return fmt.Errorf("disk fault %s on node %d: no disk operation failed and no reaction before its step's deadline: %w", f.mode, f.node, ctx.Err())
	default:
		return fmt.Errorf("disk fault %s on node %d: no disk operation failed and no reaction within %s", f.mode, f.node, f.wait)
	}
	f.evidence = append(f.evidence, fmt.Sprintf("node %d disk %s: %d ops failed; broker: %q", f.node, f.mode, failed, reaction))
	return nil
}

// awaitReaction polls the broker's log for its reaction, within
// DiskReactionWait.
func (f *diskFault) awaitReaction(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, f.wait)
	defer cancel()
	for {
		if r := f.df.DiskReaction(f.node); r != "" {
			return r
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (f *diskFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.active {
		return nil
	}
	restarted, err := f.df.HealDisk(ctx, f.node)
	if err != nil {
		return err
	}
	f.active = false
	f.detail["restarted"] = restarted
	f.detail["heal-verified"] = "fault cleared; a broker that had shut down restarted, listening and registered again"
	f.evidence = append(f.evidence, fmt.Sprintf("node %d disk healed (restarted: %v)", f.node, restarted))
	return nil
}
