package sim

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
)

// rebalances keeps what a group member's rebalances revoked and assigned
// since its last poll op, for the next one (kgo calls back from its own
// goroutine; rebalances run only between polls, BlockRebalanceOnPoll or
// a GroupTransactSession).
type rebalances struct {
	e  *env
	mu sync.Mutex
	rb histories.Rebalance
}

// opts are the kgo callbacks that note the rebalances.
func (r *rebalances) opts() []kgo.Opt {
	return []kgo.Opt{
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.note(m, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.note(m, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { r.note(m, false) }),
	}
}

func (r *rebalances) note(m map[string][]int32, assigned bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range m[r.e.s.Keys.Topic] {
		if assigned {
			r.rb.Assigned = append(r.rb.Assigned, r.e.keyOf(p))
		} else {
			r.rb.Revoked = append(r.rb.Revoked, r.e.keyOf(p))
		}
	}
}

// take is what happened since the last take, nil when nothing did.
func (r *rebalances) take() *histories.Rebalance {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.rb.Assigned)+len(r.rb.Revoked) == 0 {
		return nil
	}
	rb := r.rb
	r.rb = histories.Rebalance{}
	return &rb
}
