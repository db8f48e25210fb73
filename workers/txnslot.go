package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// txnWorker is a transactional worker a slot runs: a CopierClient or a
// TxnQueueClient. Both hold a transactional.id that their successor in
// the slot takes over, fencing them.
type txnWorker interface {
	comparable
	Ended() bool
	NeedsFencing() bool
	Crash()
	Close()
}

// keepRunning keeps a transactional worker running in its slot until ctx
// ends: open makes one and puts it in the slot, steps runs it until it can
// step no more. A worker that crashed, stopped or hung is replaced by a
// successor, whose InitTransactions fences it; so is one whose open hung
// (that is a finding in the history, not a harness error).
func keepRunning[T txnWorker](ctx context.Context, w *Workload, open func(context.Context) (T, error), steps func(T)) {
	for ctx.Err() == nil {
		t, err := open(ctx)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, client.ErrClientHang):
			continue
		case errors.Is(err, client.ErrRetriesExhausted):
			w.fail(err) // the cluster may come back: keep trying
			continue
		default:
			w.fail(err)
			return
		}
		steps(t)
		if ctx.Err() != nil && !t.Ended() {
			t.Close()
		}
	}
}

// stepUntilEnd runs step, paced by every, until ctx ends or the worker
// named name can step no more: it crashed, or stopped (its error matches
// stopped), and a successor takes over. A retried call that ran out of its
// budget is a harness error; the worker carries on.
func stepUntilEnd(ctx context.Context, w *Workload, every time.Duration, name string, stopped error, step func() error) {
	for ctxsleep.For(ctx, every) {
		err := step()
		if errors.Is(err, client.ErrRetriesExhausted) {
			w.fail(fmt.Errorf("workload: %s: %w", name, err))
		}
		if errors.Is(err, client.ErrCrashed) || errors.Is(err, stopped) {
			return
		}
	}
}

// txnProducerConfig is the producer config of copiers and txn queues: the
// scenario's, with a transaction timeout that is a backstop (successors
// abort sooner) and, as librdkafka wants, no shorter than the delivery
// timeout.
func (w *Workload) txnProducerConfig() client.ProducerConfig {
	pc := w.producerConfig()
	pc.TransactionTimeout = max(10*time.Second, pc.DeliveryTimeout)
	return pc
}

// requestCrash asks t, a slot's current worker, to crash at its next
// transaction's worst moment and returns it, so the caller can tell when
// it has; ErrNothingToCrash when there is none to ask.
func requestCrash[T txnWorker](t T) (T, error) {
	var none T
	if t == none || t.Ended() || t.NeedsFencing() {
		return none, ErrNothingToCrash // none yet, or being replaced
	}
	t.Crash()
	return t, nil
}

// fenceWith opens a successor (open) only to fence what its predecessor
// left open, and closes it, within settleBound; last names the
// predecessor in the harness error of a fence that failed.
func fenceWith[T txnWorker](ctx context.Context, w *Workload, open func(context.Context) (T, error), last string) {
	ctx, cancel := context.WithTimeout(ctx, settleBound)
	defer cancel()
	next, err := open(ctx)
	if err != nil {
		w.fail(fmt.Errorf("fencing %s: %w", last, err))
		return
	}
	next.Close()
}

// needsSettling reports whether the end of a run must fence what t, a
// slot's last worker, may have left open: it crashed, stopped or hung, or
// its worker goroutine (done) never returned.
func needsSettling[T txnWorker](t T, done chan struct{}) bool {
	var none T
	if t == none {
		return false
	}
	select {
	case <-done:
		return t.NeedsFencing()
	default:
		return true
	}
}
