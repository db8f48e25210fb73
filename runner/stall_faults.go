package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/workers"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// Bounds of a consumer stall. A consumer reaches a point between its ops
// within a poll's wait and a commit (the bound covers a commit waiting for
// a moving coordinator); after the stall its next poll op follows a commit
// made on waking, which may wait for its timeout (10 s) and a read-back
// (5 s): stallWakeBound covers both.
const (
	stallHoldBound = 5 * time.Second
	stallWakeBound = 20 * time.Second
)

// stallConsumer is KindStallConsumer: one group consumer's application
// stops between two ops for the window (Start returns once it has) and
// goes on at its end; the heal counts once its next poll op completed, and
// the detail says what it saw (evicted by max.poll.interval.ms or not).
// hold stalls one, in this process or in a worker process, and returns its
// account and how to resume it.
type stallConsumer struct {
	hold func(ctx context.Context) (client.StallReport, func() (client.StallReport, error), error)

	mu     sync.Mutex
	resume func() (client.StallReport, error)
	last   any
}

func (f *stallConsumer) Name() string { return "stall-consumer" }

func (f *stallConsumer) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *stallConsumer) Start(ctx context.Context) error {
	r, resume, err := f.hold(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotFired, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resume, f.last = resume, stallDetail(r)
	return nil
}

// Stop resumes the consumer and waits for its next poll op; a consumer
// that ended first (another fault crashed it) is healed by its slot's
// successor. One that completes no poll within stallWakeBound did not
// recover: a failed heal.
func (f *stallConsumer) Stop(context.Context) error {
	f.mu.Lock()
	resume := f.resume
	f.resume = nil
	f.mu.Unlock()
	if resume == nil {
		return nil
	}
	r, err := resume()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = stallDetail(r)
	return err
}

// stallDetail is a stall's account as its nemesis op's detail.
func stallDetail(r client.StallReport) map[string]any {
	d := map[string]any{"process": r.Process, "held": r.At, "max-poll-interval-ms": r.MaxPollIntervalMs}
	if r.Ended {
		d["effect"] = "the consumer ended before its next poll"
	}
	w := r.Waking
	if w == nil {
		return d
	}
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
	return d
}

// stallHere stalls a running group consumer of this process's workload,
// chosen by the seed among those with no crash awaited.
func (sc *schedule) stallHere(ctx context.Context) (client.StallReport, func() (client.StallReport, error), error) {
	slot := sc.crashable()
	if slot == nil {
		return client.StallReport{}, nil, workers.ErrNothingToCrash
	}
	s, err := slot.Stall()
	if err != nil {
		return client.StallReport{}, nil, err
	}
	if err := s.WaitHeld(ctx, stallHoldBound); err != nil {
		return client.StallReport{}, nil, err
	}
	return s.Report(), func() (client.StallReport, error) { return s.Wake(stallWakeBound) }, nil
}

// stallProcess stalls the consumer of a consumer's worker process, which
// holds and wakes it as stallHere does, within the same bounds.
func stallProcess(pool *proc.Pool) func(context.Context) (client.StallReport, func() (client.StallReport, error), error) {
	return func(ctx context.Context) (client.StallReport, func() (client.StallReport, error), error) {
		st, err := pool.Stall(ctx, stallHoldBound, stallWakeBound)
		if err != nil {
			return client.StallReport{}, nil, err
		}
		return st.Report, st.Resume, nil
	}
}
