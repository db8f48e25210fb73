package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// txnClient is what the two transactional workers, Copier and TxnQueue,
// share: one history process made of a consumer (whose op lock and process
// id are the worker's) and a transactional producer; the bounded, retried
// calls of Kafka's transactional API; the crash before the commit; and the
// bookkeeping of which handle was let go after a crash, a fatal error or a
// hang. Its methods are for the worker's goroutine, except Crash, Ended,
// Crashed and NeedsFencing.
type txnClient struct {
	c        *Consumer
	kp       txnProducer
	process  int64
	recorder Recorder
	// callTimeout is what each transactional call is given; retryBudget
	// bounds all attempts of one retried call (see retry).
	callTimeout, retryBudget time.Duration
	// stopped is the worker's error once it cannot go on (stop).
	stopped error
	dead    bool // fatal error, crash, hang or close: no more steps
	// consumerReleased, producerReleased: the worker has let go of that
	// handle (closed it, is closing it, or abandoned it hung); it must
	// not be touched again.
	consumerReleased, producerReleased bool
	// unfenced: the worker ended without a clean close (crash, fatal
	// error, hang), so a transaction of its may still be open.
	unfenced atomic.Bool
}

// txnProducer is what a transactional worker calls on its producer:
// *kafka.Producer, or in tests a wrapper that makes one call hang as
// librdkafka's do.
type txnProducer interface {
	InitTransactions(ctx context.Context) error
	BeginTransaction() error
	SendOffsetsToTransaction(ctx context.Context, offsets []kafka.TopicPartition, meta *kafka.ConsumerGroupMetadata) error
	CommitTransaction(ctx context.Context) error
	AbortTransaction(ctx context.Context) error
	Produce(msg *kafka.Message, reports chan kafka.Event) error
	Close()
}

// openProducer creates a producer of pc whose log lines are worker's.
// Delivery reports go to the channels given to Produce; client-level
// events are drained so they never back up.
func openProducer(bootstrap string, pc ProducerConfig, logs *Logs, worker string) (*kafka.Producer, error) {
	cm, err := pc.ConfigMap(bootstrap)
	if err != nil {
		return nil, err
	}
	logs.configure(cm, pc.Extra)
	kp, err := kafka.NewProducer(cm)
	if err != nil {
		return nil, err
	}
	logs.drain(worker, kp.Logs())
	go func() {
		for range kp.Events() {
		}
	}()
	return kp, nil
}

// open runs init (InitTransactions, for a worker with transactions) and
// then join (its assign or subscribe). After an error it lets both handles
// go without closing them: one may be hung, and must not be touched again.
func (t *txnClient) open(init, join func() error) error {
	err := init()
	if err == nil {
		err = join()
	}
	if err != nil {
		t.abandon(err)
	}
	return err
}

// defaultTimeouts fills in a transactional worker's unset call timeout
// (10s) and retry budget (6 call timeouts).
func defaultTimeouts(call, budget *time.Duration) {
	if *call <= 0 {
		*call = 10 * time.Second
	}
	if *budget <= 0 {
		*budget = 6 * *call
	}
}

// initTransactions fences any earlier producer with the same
// transactional.id (the coordinator aborts its open transaction), retrying
// what the API calls retriable.
func (t *txnClient) initTransactions(ctx context.Context) error {
	if err := t.retry(ctx, "InitTransactions", t.kp.InitTransactions); err != nil {
		return fmt.Errorf("init transactions: %w", err)
	}
	return nil
}

// ErrRetriesExhausted is a retried call that was still failing retriably
// when its RetryBudget ran out: a harness error, not an op outcome.
var ErrRetriesExhausted = errors.New("client: retries exhausted")

// Backoff between attempts of a retried call: it doubles from
// retryBackoffMin up to retryBackoffMax, so a coordinator that is loading
// is not hammered, and one that came back is asked again within a second.
const (
	retryBackoffMin = 50 * time.Millisecond
	retryBackoffMax = time.Second
)

// retry runs the producer call named name again for as long as it fails
// retriably, ctx lasts and the retry budget allows, backing off between
// attempts. Each attempt is given callTimeout and watched (attempt).
func (t *txnClient) retry(ctx context.Context, name string, call func(context.Context) error) error {
	start := time.Now()
	backoff := retryBackoffMin
	for n := 1; ; n++ {
		err := t.attempt(ctx, name, call)
		if TxnActionOf(err) != TxnRetry || ctx.Err() != nil {
			return err
		}
		if time.Since(start)+backoff > t.retryBudget {
			return fmt.Errorf("%w: %s failed retriably %d times in %v: %w",
				ErrRetriesExhausted, name, n, time.Since(start).Round(time.Millisecond), err)
		}
		if !ctxsleep.For(ctx, backoff) {
			return err
		}
		backoff = min(2*backoff, retryBackoffMax)
	}
}

// attempt is one call of a producer method, given callTimeout (less if
// ctx ends sooner) and abandoned as hung a grace after it.
func (t *txnClient) attempt(ctx context.Context, name string, call func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, t.callTimeout)
	defer cancel()
	dl, _ := cctx.Deadline()
	err := Bounded(name, time.Until(dl), func() error { return call(cctx) })
	if errors.Is(err, ErrClientHang) {
		t.producerReleased = true
	}
	return err
}

// abort aborts the open transaction within 3 callTimeouts. A run that ends
// (ctx) leaves it open instead: the successor the runner opens to settle
// the run fences it at once, where waiting here would hold the run's end.
func (t *txnClient) abort(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("left open to the successor's fence: %w", err)
	}
	actx, cancel := context.WithTimeout(ctx, 3*t.callTimeout)
	defer cancel()
	return t.retry(actx, "AbortTransaction", t.kp.AbortTransaction)
}

// stop ends the worker after an error it cannot step past (a fenced
// producer, a position it cannot restore, a hung call): it closes the
// clients that are not hung, without waiting, so that a successor can take
// over at once and fence what may still be open.
func (t *txnClient) stop(err error) error {
	t.dead = true
	t.unfenced.Store(true)
	t.abandon(err)
	return fmt.Errorf("%w: %w", t.stopped, err)
}

// Process returns the worker's process id.
func (t *txnClient) Process() int64 { return t.process }

// NeedsFencing reports whether the worker ended without a clean close (a
// crash, a fatal error, a hang): a transaction of its may still be open,
// holding back read_committed readers until a successor with the same
// transactional.id fences it, or transaction.timeout.ms passes. Safe to
// call from any goroutine.
func (t *txnClient) NeedsFencing() bool { return t.unfenced.Load() }

// Close shuts the worker down cleanly (not a crash): an idle worker has no
// open transaction. It is a no-op after a crash or a stop. Each client's
// close is watched: one that hangs is recorded as a client-hang and the
// other is then left to close on its own.
func (t *txnClient) Close() {
	t.dead = true
	if !t.consumerReleased {
		t.consumerReleased = true
		// The consumer bounds its own close and records its own hang.
		if err := t.c.Close(); errors.Is(err, ErrClientHang) {
			t.unfenced.Store(true)
			t.abandon(nil)
			return
		}
	}
	if !t.producerReleased {
		t.producerReleased = true
		if err := Bounded("Producer.Close", t.callTimeout, func() error { t.kp.Close(); return nil }); err != nil {
			t.abandon(err)
		}
	}
}

// abandon records err, if it is a hang, as the process's last op, and lets
// whichever handle is not gone close on its own: nothing waits for it.
func (t *txnClient) abandon(err error) {
	var hang *HangError
	if errors.As(err, &hang) {
		t.unfenced.Store(true)
		t.recorder.Record(&histories.Op{Process: t.process, Type: histories.Info,
			F: histories.FClientHang, Value: hang.Value()})
	}
	if !t.consumerReleased {
		t.consumerReleased = true
		go t.c.kc.Close()
	}
	if !t.producerReleased {
		t.producerReleased = true
		go t.kp.Close()
	}
}

// Crash requests a crash at the worst moment of the worker's next
// transaction: after its records were sent (and a copier's offsets added
// to the transaction), before the commit. The open op completes as info, a
// crash op follows, and both clients are torn down without a clean close:
// no abort, no commit, no leave (with a Fencer). Safe to call from any
// goroutine; the step then returns ErrCrashed.
func (t *txnClient) Crash() { t.c.crashAt.Store(int32(crashInTxn)) }

// Ended reports whether the worker has ended: crashed, closed, or
// abandoned after a hung call. No op of its process follows.
func (t *txnClient) Ended() bool { return t.c.Ended() }

// Crashed reports whether a crash requested by Crash has taken effect; a
// clean Close is not one.
func (t *txnClient) Crashed() bool { return t.c.Crashed() }

// crashPoint reports whether a requested crash fires now.
func (t *txnClient) crashPoint() bool { return t.c.crashPoint(crashInTxn) }

// crash completes open (if any) as info with mops, records the crash op and
// tears the clients down. Called with the consumer's op lock held.
func (t *txnClient) crash(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		t.c.completePoll(open, histories.Info, mops, ErrCrashed)
	}
	t.dead, t.consumerReleased, t.producerReleased = true, true, true
	t.unfenced.Store(true)
	// Every send has its report by now. The producer's transaction
	// stays open: the coordinator aborts it when a successor's
	// InitTransactions fences this producer.
	go t.kp.Close()
	return t.c.crashIn(nil, nil)
}

// txnRun is one transaction in progress.
type txnRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	extra           map[string]json.RawMessage // set on the completion
	begun           bool
	commitRequested bool
}

// beginTxn begins run's transaction.
func (t *txnClient) beginTxn(ctx context.Context, run *txnRun) error {
	err := t.attempt(ctx, "BeginTransaction", func(context.Context) error { return t.kp.BeginTransaction() })
	run.begun = err == nil
	return err
}

// conclude ends a begun transaction whose work ended with err: a requested
// crash lands here, before the commit; otherwise the transaction commits,
// unless err or abort (on purpose) say it must not, and end records it.
func (t *txnClient) conclude(ctx context.Context, run *txnRun, err error, abort bool, rewind func() error) (histories.Type, error) {
	// A hung producer cannot be crashed (its Close could hang too): the
	// requested crash does not take effect, and the hang ends the worker.
	if t.crashPoint() && !errors.Is(err, ErrClientHang) {
		return histories.Info, t.crash(run.inv, run.mops)
	}
	if err == nil && abort {
		err = ErrAbortedOnPurpose
	}
	if err == nil {
		// A step whose ctx ended asks for no commit: without one the
		// transaction certainly aborts, and its op is a definite fail.
		err = ctx.Err()
	}
	if err == nil {
		run.commitRequested = true
		err = t.retry(ctx, "CommitTransaction", t.kp.CommitTransaction)
	}
	return t.end(ctx, run, err, rewind)
}

// end records the txn op's completion and, unless it committed, aborts
// what may be open and rewinds the consumer (rewind) to where the next
// transaction must read from.
//
// A hang completes the op like any other error (TxnOutcome): fail before
// CommitTransaction was called, info during it. Fail stays true of a hang
// in SendOffsetsToTransaction (or BeginTransaction, or a poll): the hung
// handle is abandoned, so no CommitTransaction, the only call that sends
// EndTxn(commit), is ever made on it, and the coordinator aborts the open
// transaction when the successor's InitTransactions fences the handle's
// transactional.id (the runner always opens one, at the latest to settle
// the run) or, failing that, after transaction.timeout.ms. A hang in
// CommitTransaction is info: the EndTxn may have been applied.
func (t *txnClient) end(ctx context.Context, run *txnRun, err error, rewind func() error) (histories.Type, error) {
	typ := TxnOutcome(run.commitRequested, err)
	op := t.c.ops.PollCompletion(run.inv, typ, run.mops, err)
	for field, v := range run.extra {
		SetExtra(op, field, v)
	}
	t.c.recordPoll(op)
	switch {
	case typ == histories.OK:
		return typ, nil
	case errors.Is(err, ErrClientHang), TxnActionOf(err) == TxnFatal:
		return typ, t.stop(err)
	}
	if run.begun {
		if abortErr := t.abort(ctx); abortErr != nil {
			// The producer is stuck in this transaction: a successor
			// fences it and the coordinator aborts what is open.
			return typ, t.stop(fmt.Errorf("abort: %w", abortErr))
		}
	}
	if rerr := rewind(); rerr != nil {
		return typ, t.stop(fmt.Errorf("rewind: %w", rerr))
	}
	if errors.Is(err, ErrRetriesExhausted) {
		return typ, err // the worker carries on, but the harness must hear of it
	}
	return typ, nil
}
