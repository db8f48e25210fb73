package nemesis

import (
	"context"
	"fmt"
	"maps"
	"sync"
)

// What every real-broker fault kind opens with, so that a kind file keeps
// only its own lines: the op's detail behind a lock, and a Start that
// snapshots the cluster and picks the target's nodes.

// record is a fault's op detail, guarded: the fault's Start and Stop write
// it while the runner reads it for the ops.
type record struct {
	mu     sync.Mutex
	detail map[string]any
}

func (r *record) Detail() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.detail)
}

// opening is how a real-broker fault's Start begins: the op's detail (the
// cluster's leader and controller, the target, the nodes) and the nodes
// pick chose. The detail comes back when the pick fails too, for the op
// to say what the fault saw.
func (tg Targeting) opening(ctx context.Context, target string, pick Picker) (map[string]any, []int32, error) {
	d := tg.snapshot(ctx)
	d["target"] = target
	nodes, err := pick(ctx)
	if err != nil {
		return d, nil, fmt.Errorf("picking %s: %w", target, err)
	}
	if len(nodes) == 0 {
		// a minority of one or two brokers is nobody: a fault with no
		// broker to act on must not count as fired
		return d, nil, fmt.Errorf("picking %s: no broker to act on", target)
	}
	d["nodes"] = nodes
	return d, nodes, nil
}
