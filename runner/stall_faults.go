package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/workers"
)

// Bounds of a consumer stall. A consumer reaches a point between its ops
// within a poll's wait and a commit (commitHold covers a commit waiting for
// a moving coordinator); after the stall its next poll op follows a commit
// made on waking, which may wait for its timeout (10 s) and a read-back
// (5 s): wakeBound covers both.
const (
	stallHoldBound = 5 * time.Second
	stallWakeBound = 20 * time.Second
)

// stallConsumer is KindStallConsumer: one group consumer's application
// stops between two ops for the window (Start returns once it has) and
// goes on at its end; the heal counts once its next poll op completed, and
// the detail says what it saw (evicted by max.poll.interval.ms or not).
type stallConsumer struct {
	sc *schedule

	mu    sync.Mutex
	stall *client.Stall
	last  any
}

func (f *stallConsumer) Name() string { return "stall-consumer" }

func (f *stallConsumer) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *stallConsumer) Start(ctx context.Context) error {
	s, err := f.sc.stallOne()
	if err != nil {
		return fmt.Errorf("%w: %w", errNotFired, err)
	}
	if err := held(ctx, s); err != nil {
		return fmt.Errorf("%w: consumer %d: %w", errNotFired, s.Process(), err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stall = s
	f.last = map[string]any{"process": s.Process(), "held": s.At(), "max-poll-interval-ms": s.MaxPollInterval().Milliseconds()}
	return nil
}

// held waits until s is held; one not held within stallHoldBound is
// withdrawn (or, held just then, kept).
func held(ctx context.Context, s *client.Stall) error {
	t := time.NewTimer(stallHoldBound)
	defer t.Stop()
	select {
	case <-s.Held():
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	if s.Cancel() {
		return fmt.Errorf("reached no point between its ops within %v", stallHoldBound)
	}
	return nil
}

// Stop resumes the consumer and waits for its next poll op; a consumer
// that ended first (another fault crashed it) is healed by its slot's
// successor. One that completes no poll within stallWakeBound did not
// recover: a failed heal.
func (f *stallConsumer) Stop(context.Context) error {
	f.mu.Lock()
	s := f.stall
	f.stall = nil
	f.mu.Unlock()
	if s == nil {
		return nil
	}
	s.Resume()
	d, err := woke(s)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = d
	return err
}

// woke waits for s's consumer's first poll op after the stall and says
// what it saw.
func woke(s *client.Stall) (map[string]any, error) {
	d := map[string]any{"process": s.Process(), "held": s.At(), "max-poll-interval-ms": s.MaxPollInterval().Milliseconds()}
	deadline := time.NewTimer(stallWakeBound)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.Woke():
			w := s.Waking()
			d["stalled-ms"], d["evicted"] = w.Stalled.Milliseconds(), w.Evicted
			if w.Error != "" {
				d["error"] = w.Error
			}
			if w.Commit != "" {
				d["commit-on-waking"] = w.Commit
			}
			if r := w.Rebalance; r != nil && len(r.Revoked) > 0 {
				d["revoked"] = r.Revoked
			}
			if r := w.Rebalance; r != nil && len(r.Assigned) > 0 {
				d["assigned"] = r.Assigned
			}
			return d, nil
		case <-tick.C:
			if s.Ended() {
				d["effect"] = "the consumer ended before its next poll"
				return d, nil
			}
		case <-deadline.C:
			return d, fmt.Errorf("consumer %d completed no poll within %v of its resume", s.Process(), stallWakeBound)
		}
	}
}

// stallOne asks a running group consumer, chosen by the seed among those
// with no crash awaited, to stall.
func (sc *schedule) stallOne() (*client.Stall, error) {
	slot := sc.crashable()
	if slot == nil {
		return nil, workers.ErrNothingToCrash
	}
	return slot.Stall()
}
