package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// TxnQueueOptions configures a TxnQueue.
type TxnQueueOptions struct {
	Bootstrap string
	// Keys are the keys the queue sends to and polls. It assigns all of
	// them from their beginning, read_committed, outside any group.
	Keys *KeyMap
	// TransactionalID is required. A successor taking over from a
	// crashed queue uses the same id: its InitTransactions fences the
	// old producer and aborts its open transaction.
	TransactionalID string
	Producer        ProducerConfig // timeouts; the queue sets transactional.id, idempotence and acks=all
	Consumer        ConsumerConfig // timeouts; the queue sets read_committed, no group and no commits
	// AbortProbability is the chance that a transaction is aborted on
	// purpose once its sends and polls are done.
	AbortProbability float64
	Seed             int64 // of the abort dice and the pauses
	// IntraTxnDelay is the longest pause between two steps of a
	// transaction: half of the transactions pause a random time up to it
	// before each mop after the first and before their commit or abort,
	// recorded in the completion's ExtraIntraTxnDelays. 0 means none.
	IntraTxnDelay time.Duration
	CallTimeout   time.Duration // per transactional call; 0 means 10s
	// RetryBudget bounds all attempts of one retried transactional call,
	// and the wait for a transaction's delivery reports; 0 means 6
	// CallTimeouts.
	RetryBudget time.Duration
	Recorder    Recorder
	Process     int64
	// Logs, when set, takes librdkafka's own log lines of both clients;
	// nil leaves them on stderr.
	Logs *Logs
}

// TxnQueue is one process of Jepsen's queue workload with transactions:
// each Step is one Kafka transaction that mixes sends to several keys and
// read_committed polls of its keys, committed or aborted as a unit, and
// recorded as one txn op whose mops are the sends and polls in the order
// they were made, as Jepsen records its :txn ops. A read of an aborted
// transaction's value (G1a), of a value before its transaction committed
// (precommitted-read), a committed send no read finds (lost-write), a
// committed transaction only partly visible (torn-transaction) or whose
// write landed inside the queue's next one (interleaved-transaction) and
// cycles between transactions (G0, G1c) can then all show in a history.
//
// The completion is ok only when CommitTransaction returned success; fail
// when the transaction ended before CommitTransaction was called (aborted
// on purpose, or an error), since only the EndTxn(commit) it sends can
// make the records visible; info once it was called and failed, and on a
// crash. After a transaction that did not commit, the queue seeks back to
// the first record each key's polls read in it, so the next transaction
// reads them again: an aborted transaction consumed nothing, and the
// process's positions stay those of its committed polls, as Jepsen's
// client does. Step runs one transaction at a time; Crash may be called
// from any goroutine.
type TxnQueue struct {
	txnClient
	opts TxnQueueOptions
	rng  *rand.Rand
}

// ErrTxnQueueStopped is returned by Step once the queue hit a fatal error
// or a hung call (ErrClientHang, which it then wraps too): a successor
// (same transactional.id, new process) must take over.
var ErrTxnQueueStopped = errors.New("client: txn queue stopped (a fatal error or a hung call)")

// NewTxnQueue creates the consumer and the transactional producer,
// initialises transactions (fencing any earlier queue with the same
// transactional.id) and records the assign op of every key.
func NewTxnQueue(ctx context.Context, opts TxnQueueOptions) (*TxnQueue, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cc := opts.Consumer
	cc.Group, cc.Commit, cc.ReadCommitted = "", CommitNone, true
	c, err := NewConsumer(ConsumerOptions{Bootstrap: opts.Bootstrap, Config: cc, Keys: opts.Keys,
		Recorder: opts.Recorder, Process: opts.Process, Logs: opts.Logs, worker: opts.worker() + " consumer"})
	if err != nil {
		return nil, fmt.Errorf("txn queue: %w", err)
	}
	q := &TxnQueue{txnClient: txnClient{c: c, process: opts.Process, recorder: opts.Recorder, stopped: ErrTxnQueueStopped,
		callTimeout: opts.CallTimeout, retryBudget: opts.RetryBudget},
		opts: opts, rng: rand.New(rand.NewSource(opts.Seed))}
	pc := opts.Producer
	pc.TransactionalID, pc.Idempotence, pc.Acks = opts.TransactionalID, true, "all"
	if q.kp, err = openProducer(opts.Bootstrap, pc, opts.Logs, opts.worker()+" producer"); err != nil {
		c.Close()
		return nil, fmt.Errorf("txn queue: %w", err)
	}
	err = q.open(func() error { return q.initTransactions(ctx) }, func() error { return c.Assign(opts.Keys.Keys()) })
	if err != nil {
		return nil, fmt.Errorf("txn queue: %w", err)
	}
	return q, nil
}

// Validate refuses options no queue can run with, and fills in the
// default timeouts.
func (o *TxnQueueOptions) Validate() error {
	switch {
	case o.Keys == nil || o.Recorder == nil:
		return errors.New("txn queue: Keys and Recorder are required")
	case o.TransactionalID == "":
		return errors.New("txn queue: TransactionalID is required")
	case o.AbortProbability < 0 || o.AbortProbability > 1:
		return fmt.Errorf("txn queue: AbortProbability = %v, want 0..1", o.AbortProbability)
	case o.IntraTxnDelay < 0:
		return fmt.Errorf("txn queue: IntraTxnDelay = %v, want >= 0", o.IntraTxnDelay)
	}
	defaultTimeouts(&o.CallTimeout, &o.RetryBudget)
	return nil
}

// worker names the queue in its clients' log lines.
func (o TxnQueueOptions) worker() string { return "txn queue " + processList([]int64{o.Process}) }

// Step runs plan as one transaction and records it as one txn op: each
// mop is a send of its value to its key (histories.Send) or a poll
// ({F: MPoll}) of up to pollMax records, waiting at most pollWait. It
// returns the op's type, and an error when the queue cannot go on
// (ErrCrashed, ErrTxnQueueStopped) or a retried call ran out of its budget
// (ErrRetriesExhausted). A plan it cannot run (an empty one, a key outside
// Keys, another kind of mop) is refused before anything is recorded.
func (q *TxnQueue) Step(ctx context.Context, plan []histories.Mop, pollMax int, pollWait time.Duration) (histories.Type, error) {
	if err := q.opts.CheckPlan(plan); err != nil {
		return "", err
	}
	if err := q.c.begin(); err != nil {
		return "", err
	}
	defer q.c.opMu.Unlock()
	if q.dead {
		return "", ErrTxnQueueStopped
	}
	run := &txnRun{inv: q.c.ops.Invoke(histories.FTxn, plan, nil), mops: slices.Clone(plan)}
	first := map[histories.Key]int64{} // the first offset this transaction read, per key
	rewind := func() error { return q.seekBack(first) }
	abort := q.rng.Float64() < q.opts.AbortProbability
	pauses := IntraTxnPauses(q.rng, len(plan), q.opts.IntraTxnDelay)
	if len(pauses) > 0 {
		run.extra = map[string]json.RawMessage{ExtraIntraTxnDelays: PausesJSON(pauses)}
	}
	if err := q.beginTxn(ctx, run); err != nil {
		return q.end(ctx, run, err, rewind)
	}
	err := q.perform(ctx, run.mops, first, pollMax, pollWait, pauses)
	if err == nil && len(pauses) > 0 && !ctxsleep.For(ctx, pauses[len(pauses)-1]) {
		err = ctx.Err()
	}
	return q.conclude(ctx, run, err, abort, rewind)
}

// ExtraIntraTxnDelays is the Extra field of a txn op whose transaction
// paused between its steps (TxnQueueOptions.IntraTxnDelay): the pauses in
// milliseconds, before each mop after the first and, last, before the
// commit or abort.
const ExtraIntraTxnDelays = "intra-txn-delays"

// IntraTxnPauses draws a transaction's pauses: for half of the
// transactions, one of up to most before each of its steps after the
// first (a transaction of n mops has n: n-1 between them and one before
// its end); none for the others, or when most is 0.
func IntraTxnPauses(rng *rand.Rand, n int, most time.Duration) []time.Duration {
	if most <= 0 || rng.Intn(2) == 0 {
		return nil
	}
	pauses := make([]time.Duration, n)
	for i := range pauses {
		pauses[i] = time.Duration(rng.Int63n(int64(most) + 1))
	}
	return pauses
}

// PausesJSON is pauses as the JSON list of whole milliseconds the op
// records.
func PausesJSON(pauses []time.Duration) json.RawMessage {
	ms := make([]int64, len(pauses))
	for i, p := range pauses {
		ms[i] = p.Milliseconds()
	}
	b, _ := json.Marshal(ms)
	return b
}

// CheckPlan refuses a plan Step cannot run: an empty one, a key outside
// Keys, a mop that is neither an unsent send nor an empty poll.
func (o TxnQueueOptions) CheckPlan(plan []histories.Mop) error {
	if len(plan) == 0 {
		return errors.New("txn queue: empty plan")
	}
	for i, m := range plan {
		switch {
		case m.F == histories.MPoll && m.Records == nil:
		case m.F == histories.MSend && m.Offset == histories.NoOffset:
			if _, ok := o.Keys.TP(m.Key); !ok {
				return fmt.Errorf("txn queue: plan[%d]: key %d is not in the key map", i, m.Key)
			}
		default:
			return fmt.Errorf("txn queue: plan[%d]: %+v is neither an unsent send nor an empty poll", i, m)
		}
	}
	return nil
}

// perform makes the transaction's sends and polls in order, pausing
// before each after the first as pauses say (none when empty), filling in
// each poll's records and, from the delivery reports, each send's offset;
// it stops at the first error. Sends are not awaited before the polls
// after them: a transaction never sees its own records, so the order that
// matters is the order the client issued them in.
func (q *TxnQueue) perform(ctx context.Context, mops []histories.Mop, first map[histories.Key]int64, pollMax int, pollWait time.Duration, pauses []time.Duration) error {
	reports := make(chan kafka.Event, len(mops))
	sent := 0
	var err error
	for i := range mops {
		if i > 0 && len(pauses) > 0 && !ctxsleep.For(ctx, pauses[i-1]) {
			err = ctx.Err()
			break
		}
		m := &mops[i]
		if m.F == histories.MSend {
			tp, _ := q.opts.Keys.TP(m.Key)
			if err = q.kp.Produce(&kafka.Message{TopicPartition: tp, Value: encodeValue(m.Value), Opaque: i}, reports); err != nil {
				break
			}
			sent++
			continue
		}
		var got *fetched
		got, err = q.poll(ctx, pollMax, pollWait)
		m.Records = got.Records
		for k, recs := range got.Records {
			if _, seen := first[k]; !seen && len(recs) > 0 {
				first[k] = recs[0].Offset
			}
		}
		if err != nil {
			break
		}
	}
	return cmp.Or(err, q.awaitReports(ctx, mops, reports, sent))
}

// poll is one poll mop, as a Java consumer's poll(timeout) is: the
// records the client has fetched already, up to max, or when it has none,
// the first that arrive within wait. (Consumer.fetch, which waits for max
// records, would make every poll of a transaction last its whole wait.)
func (q *TxnQueue) poll(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	got := newFetched()
	deadline := time.Now().Add(wait)
	for got.N < max && ctx.Err() == nil {
		ms := 0 // records arrived: take only what is there
		if got.N == 0 {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			ms = int(min(left, 50*time.Millisecond) / time.Millisecond)
		}
		ev, err := q.c.pollEvent(ms)
		if err != nil {
			return got, err // hung: the handle is abandoned
		}
		if ev == nil && got.N > 0 {
			break
		}
		if err := q.c.handle(ev, got); err != nil {
			return got, err
		}
	}
	return got, nil
}

// awaitReports waits for n delivery reports, at most the retry budget,
// and sets each delivered send's offset. Its error is the first report's
// error, or the wait's.
func (t *txnClient) awaitReports(ctx context.Context, mops []histories.Mop, reports chan kafka.Event, n int) error {
	timer := time.NewTimer(t.retryBudget)
	defer timer.Stop()
	var first error
	for got := range n {
		var ev kafka.Event
		select {
		case ev = <-reports:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return fmt.Errorf("%d of %d delivery reports still missing after %v", n-got, n, t.retryBudget)
		}
		m := ev.(*kafka.Message)
		if m.TopicPartition.Error != nil {
			first = cmp.Or(first, m.TopicPartition.Error)
			continue
		}
		mops[m.Opaque.(int)].Offset = deliveredOffset(m)
	}
	return first
}

// seekBack moves each key back to the first record a transaction that did
// not commit read of it.
func (q *TxnQueue) seekBack(first map[histories.Key]int64) error {
	for k, off := range first {
		if err := q.c.seek(k, off); err != nil {
			return err
		}
	}
	return nil
}
