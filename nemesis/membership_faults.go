package nemesis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Reassign moves one replica of tg's partition, for the window, to a
// broker that holds none of it and is up: Start picks the replica and the
// broker with tg's random source and asks h for the replica list it found
// with that one replaced in place (so the preferred leader stays first
// unless it is the one moved); Stop asks for the list Start found. Each
// counts only once h saw the move complete (cluster.Reassigner); the
// detail names both lists and how long each move took under the load.
func Reassign(h cluster.Reassigner, tg Targeting) Fault {
	return &reassignFault{h: h, tg: tg, verified: verified(h, cluster.EffectReassign)}
}

type reassignFault struct {
	h        cluster.Reassigner
	tg       Targeting
	verified string

	mu sync.Mutex
	// from is the replica list to return to, set before the move is asked
	// for: a move that failed half way may still complete, and Stop must
	// undo it; nil when nothing is to undo.
	from   []int32
	detail map[string]any
}

// Name is also the history's start and stop: reassign-start and
// reassign-stop, which the report and the liveness checker pair as a window.
func (f *reassignFault) Name() string { return "reassign" }

func (f *reassignFault) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.detail)
}

func (f *reassignFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.from != nil {
		return nil // moved already
	}
	from, err := f.h.Replicas(ctx, f.tg.Topic, f.tg.Partition)
	if err != nil {
		return fmt.Errorf("reassign: %w", err)
	}
	to, err := moveOne(from, f.upIDs(), f.tg.intN)
	if err != nil {
		return fmt.Errorf("reassign %s/%d: %w", f.tg.Topic, f.tg.Partition, err)
	}
	f.from = from
	f.detail = map[string]any{"topic": f.tg.Topic, "partition": f.tg.Partition, "from": from, "to": to,
		"verified": f.verified}
	began := time.Now()
	if err := f.h.Reassign(ctx, f.tg.Topic, f.tg.Partition, to); err != nil {
		return err
	}
	f.detail["took"] = time.Since(began).Round(time.Millisecond).String()
	return nil
}

// Stop moves the replicas back to the list Start found; a move back that
// did not complete is an error, and Stop may be called again to retry it.
func (f *reassignFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.from == nil {
		return nil
	}
	began := time.Now()
	if err := f.h.Reassign(ctx, f.tg.Topic, f.tg.Partition, f.from); err != nil {
		return fmt.Errorf("reassign back: %w", err)
	}
	f.detail["back"] = f.from
	f.detail["back-took"] = time.Since(began).Round(time.Millisecond).String()
	f.from = nil
	return nil
}

// upIDs is the brokers that are up: a replica placed on a broker that is
// down never catches up, and its move never completes.
func (f *reassignFault) upIDs() []int32 {
	var up []int32
	for _, n := range f.tg.Provider.Nodes() {
		if n.Up {
			up = append(up, n.ID)
		}
	}
	return up
}

// moveOne is replicas with one of them, drawn by intN, replaced in place
// by a broker of up that holds none, also drawn by intN.
func moveOne(replicas, up []int32, intN func(int) int) ([]int32, error) {
	var free []int32
	for _, id := range up {
		if !slices.Contains(replicas, id) {
			free = append(free, id)
		}
	}
	switch {
	case len(replicas) == 0:
		return nil, fmt.Errorf("the partition has no replicas")
	case len(free) == 0:
		return nil, fmt.Errorf("every broker up (%v) holds a replica (%v): no broker to move one to", up, replicas)
	}
	to := slices.Clone(replicas)
	to[intN(len(to))] = free[intN(len(free))]
	return to, nil
}

// RemoveBrokerTarget takes the target's broker out of the cluster for the
// window, as an operator decommissions one: a clean stop (SIGTERM), then
// its registration removed (UnregisterBroker) once the controller fenced
// it; Stop starts it again, and it registers anew. Its replicas stay in
// the partitions' assignments, out of sync until it is back.
func RemoveBrokerTarget(h cluster.BrokerRemover, tg Targeting, target Target) Fault {
	remove := func(ctx context.Context, n int32) error {
		if err := h.StopNode(ctx, n); err != nil {
			return err
		}
		return h.Unregister(ctx, n)
	}
	return &targetFault{name: "remove-broker", startF: "remove-broker-start", stopF: "remove-broker-stop", tg: tg,
		pick: tg.Pick(target), target: string(target), mechanism: map[string]any{"signal": "SIGTERM", "request": "UnregisterBroker"},
		apply: eachNode(remove), heal: allNodes(h.StartNode), effects: [2]cluster.Effect{cluster.EffectUnregister, cluster.EffectRestart}}
}
