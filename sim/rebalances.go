package sim

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
)

// rebalances keeps what a group member's rebalances revoked and assigned
// since its last poll op, for the next one (kgo calls back from its own
// goroutine; rebalances run only between polls, BlockRebalanceOnPoll or
// a GroupTransactSession).
type rebalances struct {
	e *env
	histories.Moves
}

// opts are the kgo callbacks that note the rebalances.
func (r *rebalances) opts() []kgo.Opt {
	return []kgo.Opt{
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.Assign(r.keysOf(m)...) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.Revoke(r.keysOf(m)...) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.Revoke(r.keysOf(m)...) }),
	}
}

// keysOf are the keys of the workload topic's partitions in m.
func (r *rebalances) keysOf(m map[string][]int32) []histories.Key {
	var out []histories.Key
	for _, p := range m[r.e.s.Keys.Topic] {
		out = append(out, r.e.keyOf(p))
	}
	return out
}
