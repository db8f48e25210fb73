package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/franz"
	"github.com/kafkachaos/kafkachaos/client/java"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// TxnQueueClient is a process of Jepsen's queue workload with
// transactions, as the scenario names the client for its txn-queue role:
// client.TxnQueue (librdkafka) or java.TxnQueue (the Java client in a JVM
// of its own). Both record each Step as one txn op, the same way.
type TxnQueueClient interface {
	Step(ctx context.Context, plan []histories.Mop, pollMax int, pollWait time.Duration) (histories.Type, error)
	Process() int64
	Ended() bool
	Crashed() bool
	NeedsFencing() bool
	Crash()
	Close()
}

// TxnQueueSlot is one position of Jepsen's queue workload with
// transactions: a TxnQueueClient runs in it, each of its transactions
// mixing sends of fresh values to the input keys with read_committed polls
// of them, until it crashes or stops; a successor with the same
// transactional.id (and a new process id) then takes over, fencing it.
type TxnQueueSlot struct {
	Slot[TxnQueueClient]
	w     *Workload
	index int
	done  chan struct{} // closed when the slot's worker returned
}

// txnQueuePollWait is how long a queue's poll waits for its first record
// when none is fetched yet. A transaction's polls that find nothing cost
// this much each (see client.BenchmarkTxnQueue).
const txnQueuePollWait = 20 * time.Millisecond

// txnQueueSeed sets the queues' abort dice apart from the copiers'.
const txnQueueSeed = 1 << 20

// newTxnQueueSlots makes the workload's queue slots.
func newTxnQueueSlots(w *Workload) []*TxnQueueSlot {
	var out []*TxnQueueSlot
	for i := range w.s.Workload.TxnQueues {
		if w.has(generators.RoleTxnQueue, i) {
			out = append(out, &TxnQueueSlot{w: w, index: i})
		}
	}
	return out
}

// TxnQueues are the workload's queue slots, for the faults that act on
// clients.
func (w *Workload) TxnQueues() []*TxnQueueSlot { return w.txnQueues }

// startTxnQueues launches a worker per queue slot; their transactions
// share the mix's txn weight with the copiers.
func (w *Workload) startTxnQueues(ctx context.Context) {
	wl := w.s.Workload
	every := w.interval(max(wl.Mix.Txn, 1), wl.Copiers+wl.TxnQueues)
	for _, q := range w.txnQueues {
		q.done = w.spawn(fmt.Sprintf("txn queue %d", q.index), func() {
			keepRunning(ctx, w, q.open, func(tq TxnQueueClient) { q.step(ctx, tq, every) })
		})
	}
}

// settleTxnQueues fences what the last queue of each slot may have left
// open (see CopierSlot.settle).
func (w *Workload) settleTxnQueues(ctx context.Context) {
	for _, q := range w.txnQueues {
		if tq := q.Current(); needsSettling(tq, q.done) {
			fenceWith(ctx, w, q.open, fmt.Sprintf("the last txn queue %d", tq.Process()))
		}
	}
}

// options: each queue has a transactional.id of its own, derived from the
// producer's; it sends to and polls the input keys.
func (s *TxnQueueSlot) options() client.TxnQueueOptions {
	w, sc := s.w, s.w.s
	return client.TxnQueueOptions{
		Bootstrap: w.opts.Bootstrap, Keys: w.input,
		TransactionalID:  sc.QueueTxnID(s.index),
		Producer:         w.txnProducerConfig(),
		AbortProbability: sc.Workload.AbortRatio, Seed: sc.Seed + txnQueueSeed + int64(s.index),
		IntraTxnDelay: sc.Workload.IntraTxnDelay.D(),
		CallTimeout:   copierCallTimeout,
		Recorder:      w.opts.Recorder, Process: w.procs.Next(), Logs: w.opts.Logs,
	}
}

func (s *TxnQueueSlot) open(ctx context.Context) (TxnQueueClient, error) {
	q, err := s.newQueue(ctx)
	if err != nil {
		return nil, fmt.Errorf("workload: txn queue %d: %w", s.index, err)
	}
	s.Put(q)
	return q, nil
}

// newQueue opens a queue of the scenario's txn-queue client.
func (s *TxnQueueSlot) newQueue(ctx context.Context) (TxnQueueClient, error) {
	switch s.w.s.ClientOf(generators.RoleTxnQueue) {
	case generators.ClientJava:
		return java.NewTxnQueue(ctx, java.TxnQueueOptions{TxnQueueOptions: s.options(), Version: s.w.s.JavaVersion()})
	case generators.ClientFranzGo:
		return franz.NewTxnQueue(ctx, s.options())
	}
	return client.NewTxnQueue(ctx, s.options())
}

// step runs q's transactions until ctx ends or q can step no more.
func (s *TxnQueueSlot) step(ctx context.Context, q TxnQueueClient, every time.Duration) {
	stepUntilEnd(ctx, s.w, every, fmt.Sprintf("txn queue %d", s.index), client.ErrTxnQueueStopped, func() error {
		_, err := q.Step(ctx, s.plan(), s.w.s.Workload.PollBatch, txnQueuePollWait)
		return err
	})
}

// plan draws one transaction as Jepsen's queue workload does: one to
// txn-size mops, each a poll or, with even odds, a send of a fresh value.
// A transaction's sends go to distinct keys: two sends of one transaction
// to one key may have other writers' records between them, which Kafka
// allows and the checkers would report (int-send-skip). Once the
// workload's values run out (max-values), transactions only poll.
func (s *TxnQueueSlot) plan() []histories.Mop {
	w := s.w
	keys := make([]histories.Key, w.s.Keys.Count)
	for i := range keys {
		keys[i] = histories.Key(i)
	}
	limit := int64(w.s.Workload.MaxValues)
	n := 1 + w.intN(max(w.s.Workload.TxnSize, 1))
	plan := make([]histories.Mop, 0, n)
	for range n {
		if len(keys) == 0 || w.intN(2) == 0 {
			plan = append(plan, histories.Mop{F: histories.MPoll})
			continue
		}
		v := w.nextValue()
		if limit > 0 && v > limit {
			plan = append(plan, histories.Mop{F: histories.MPoll})
			continue
		}
		i := w.intN(len(keys))
		plan = append(plan, histories.Send(keys[i], v))
		keys[i] = keys[len(keys)-1]
		keys = keys[:len(keys)-1]
	}
	return plan
}

// Crash asks the queue to crash at its next transaction's worst moment,
// after its sends and polls and before its commit, and returns it, so the
// caller can tell when it has (Crashed); ErrNothingToCrash when there is
// none to ask.
func (s *TxnQueueSlot) Crash() (TxnQueueClient, error) { return requestCrash(s.Current()) }
