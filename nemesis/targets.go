package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Target names which brokers a real-broker fault acts on.
type Target string

const (
	TargetOne        Target = "one"        // one broker, chosen at random
	TargetLeader     Target = "leader"     // the leader of the watched partition
	TargetController Target = "controller" // the active KRaft controller
	TargetMinority   Target = "minority"   // fewer than half of the brokers
	TargetMajority   Target = "majority"   // more than half of the brokers
	TargetAll        Target = "all"        // every broker
	// TargetTxnCoordinator and TargetGroupCoordinator are the brokers that
	// coordinate Targeting.TxnID and Targeting.Group when the fault starts.
	TargetTxnCoordinator   Target = "txn-coordinator"
	TargetGroupCoordinator Target = "group-coordinator"
)

// Targets lists every target, in a fixed order.
func Targets() []Target {
	return []Target{TargetOne, TargetLeader, TargetController, TargetMinority, TargetMajority, TargetAll,
		TargetTxnCoordinator, TargetGroupCoordinator}
}

// Targeting is what real-broker faults need to choose their nodes and to
// describe the cluster in their nemesis ops: the provider, the partition
// whose leader matters to the run, the transactional id and group whose
// coordinators do ("" when the run has none), and a random source (seeded
// by the run, so that a replay picks the same way).
type Targeting struct {
	Provider  cluster.Provider
	Topic     string
	Partition int32
	TxnID     string
	Group     string
	// IntN returns a random int in [0, n); nil means math/rand/v2.
	IntN func(n int) int
}

func (tg Targeting) intN(n int) int {
	if tg.IntN != nil {
		return tg.IntN(n)
	}
	return rand.IntN(n)
}

// lookupPatience bounds how long a pick waits for a leader or controller:
// right after an earlier fault there may briefly be none, and failing the
// pick would end the run's whole schedule.
const lookupPatience = 15 * time.Second

// Pick returns a Picker for target.
func (tg Targeting) Pick(target Target) Picker {
	return func(ctx context.Context) ([]int32, error) { return tg.pick(ctx, target) }
}

func (tg Targeting) pick(ctx context.Context, target Target) ([]int32, error) {
	ids := tg.ids()
	n := len(ids)
	if n == 0 && target != TargetLeader && target != TargetController && !target.role() {
		return nil, errors.New("the cluster has no nodes")
	}
	switch target {
	case TargetOne:
		return tg.sample(ids, 1), nil
	case TargetLeader:
		l, err := retry(ctx, func(ctx context.Context) (int32, error) {
			return tg.Provider.Leader(ctx, tg.Topic, tg.Partition)
		})
		return []int32{l}, err
	case TargetController:
		f, ok := tg.Provider.(cluster.ControllerFinder)
		if !ok {
			return nil, fmt.Errorf("cluster provider %q cannot name its active controller", tg.Provider.Name())
		}
		c, err := retry(ctx, f.ActiveController)
		return []int32{c}, err
	case TargetTxnCoordinator, TargetGroupCoordinator:
		c, err := tg.coordinator(ctx, target)
		return []int32{c}, err
	case TargetMinority:
		return tg.sample(ids, (n-1)/2), nil
	case TargetMajority:
		return tg.sample(ids, n/2+1), nil
	case TargetAll:
		return ids, nil
	}
	return nil, fmt.Errorf("unknown target %q (want one of %v)", target, Targets())
}

// role reports whether t names a broker by the role it plays for the run.
func (t Target) role() bool { return t == TargetTxnCoordinator || t == TargetGroupCoordinator }

// roleKey is what target's broker coordinates: the key type, the run's
// key ("" when it has none) and what such a key is called.
func (tg Targeting) roleKey(target Target) (cluster.CoordinatorKind, string, string) {
	if target == TargetGroupCoordinator {
		return cluster.CoordinatorGroup, tg.Group, "consumer group"
	}
	return cluster.CoordinatorTxn, tg.TxnID, "transactional id"
}

// coordinator is the broker coordinating the run's transactional id or
// group (target says which), waited for as a leader is.
func (tg Targeting) coordinator(ctx context.Context, target Target) (int32, error) {
	kind, key, noun := tg.roleKey(target)
	if key == "" {
		return -1, fmt.Errorf("target %s: the run has no %s", target, noun)
	}
	f, ok := tg.Provider.(cluster.CoordinatorFinder)
	if !ok {
		return -1, fmt.Errorf("cluster provider %q cannot name the coordinator of %s %q", tg.Provider.Name(), noun, key)
	}
	return retry(ctx, func(ctx context.Context) (int32, error) { return f.Coordinator(ctx, kind, key) })
}

// sample picks k of ids at random, in id order. A minority of one node is
// the one-node cluster's empty set: such a fault does nothing, honestly.
func (tg Targeting) sample(ids []int32, k int) []int32 {
	ids = slices.Clone(ids)
	for i := range k {
		j := i + tg.intN(len(ids)-i)
		ids[i], ids[j] = ids[j], ids[i]
	}
	out := ids[:k]
	slices.Sort(out)
	return out
}

func (tg Targeting) ids() []int32 {
	var ids []int32
	for _, n := range tg.Provider.Nodes() {
		ids = append(ids, n.ID)
	}
	return ids
}

// others is every node not in nodes.
func (tg Targeting) others(nodes []int32) []int32 {
	var out []int32
	for _, id := range tg.ids() {
		if !slices.Contains(nodes, id) {
			out = append(out, id)
		}
	}
	return out
}

// retry calls f until it succeeds, ctx ends or lookupPatience passes.
func retry(ctx context.Context, f func(context.Context) (int32, error)) (int32, error) {
	deadline := time.Now().Add(lookupPatience)
	for {
		id, err := f(ctx)
		if err == nil {
			return id, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return -1, err
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// snapshot describes the cluster for a nemesis op: the watched partition's
// leader, the active controller and the coordinators of the run's
// transactional id and group, where they can be learnt quickly (-1 when
// not: a partitioned cluster may not answer).
func (tg Targeting) snapshot(ctx context.Context) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	d := map[string]any{"leader": int32(-1)}
	if tg.Topic != "" {
		if l, err := tg.Provider.Leader(ctx, tg.Topic, tg.Partition); err == nil {
			d["leader"] = l
		}
	}
	if f, ok := tg.Provider.(cluster.ControllerFinder); ok {
		d["controller"] = int32(-1)
		if c, err := f.ActiveController(ctx); err == nil {
			d["controller"] = c
		}
	}
	if f, ok := tg.Provider.(cluster.CoordinatorFinder); ok {
		for _, t := range []Target{TargetTxnCoordinator, TargetGroupCoordinator} {
			if kind, key, _ := tg.roleKey(t); key != "" {
				d[string(t)] = int32(-1)
				if c, err := f.Coordinator(ctx, kind, key); err == nil {
					d[string(t)] = c
				}
			}
		}
	}
	return d
}
