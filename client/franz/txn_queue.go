package franz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// TxnQueue is client.TxnQueue's process of Jepsen's queue workload with
// transactions, played by one kgo client that is both the transactional
// producer and the read_committed reader of every key (assigned from its
// beginning, no group). Each Step is one transaction recorded as one txn
// op exactly as client.TxnQueue records it: the same seed draws the same
// aborts and the same intra-transaction pauses.
//
// A requested crash lands after the transaction's sends and polls, before
// its commit, as client.TxnQueue's does: the client's connections are cut
// first (its link), so nothing it does on its way out reaches a broker,
// and the transaction stays open until a successor with the same
// transactional.id fences it. Step runs one transaction at a time; Crash
// may be called from any goroutine.
type TxnQueue struct {
	txnLife
	opts client.TxnQueueOptions
	cl   *kgo.Client
	ops  client.ConsumerOps // under mu
	rng  *rand.Rand

	mu sync.Mutex // held for the whole of each step
}

// NewTxnQueue makes the kgo client, initialises its producer id (fencing
// any earlier queue with the same transactional.id, within the retry
// budget) and records the assign op of every key.
func NewTxnQueue(ctx context.Context, opts client.TxnQueueOptions) (*TxnQueue, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	kopts, err := txnQueueOptions(opts)
	if err != nil {
		return nil, err
	}
	q := &TxnQueue{opts: opts, rng: rand.New(rand.NewSource(opts.Seed)),
		ops:     client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process},
		txnLife: txnLife{process: opts.Process, rec: opts.Recorder, link: &link{}, stopped: client.ErrTxnQueueStopped}}
	if q.cl, err = kgo.NewClient(append(kopts, kgo.Dialer(q.link.dial))...); err != nil {
		return nil, fmt.Errorf("franz txn queue: %w", err)
	}
	q.close = q.cl.Close
	if err := q.open(ctx); err != nil {
		q.halt(err)
		return nil, fmt.Errorf("franz txn queue: %w", err)
	}
	return q, nil
}

// txnQueueOptions are the kgo options of opts' client: the producer's
// (a transactional id, so idempotent acks=all) and a read_committed
// reader of every key from its beginning.
func txnQueueOptions(opts client.TxnQueueOptions) ([]kgo.Opt, error) {
	pc := opts.Producer
	pc.TransactionalID, pc.Idempotence, pc.Acks = "", true, "all"
	kopts, err := Options(pc, opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	kopts = append(kopts, kgo.TransactionalID(opts.TransactionalID), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if pc.TransactionTimeout > 0 {
		kopts = append(kopts, kgo.TransactionTimeout(pc.TransactionTimeout))
	}
	parts := map[string]map[int32]kgo.Offset{}
	for _, k := range opts.Keys.Keys() {
		tp, _ := opts.Keys.TP(k)
		if parts[*tp.Topic] == nil {
			parts[*tp.Topic] = map[int32]kgo.Offset{}
		}
		parts[*tp.Topic][tp.Partition] = kgo.NewOffset().AtStart()
	}
	return append(kopts, kgo.ConsumePartitions(parts)), nil
}

// open loads the producer id, retried while the retry budget lasts, and
// records the assign op (kgo only notes the assignment: it cannot fail).
func (q *TxnQueue) open(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	budget := q.opts.RetryBudget
	err := client.Bounded("InitProducerID", budget, func() error {
		ctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		_, _, err := q.cl.ProducerID(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", client.ErrRetriesExhausted, err)
		}
		return err
	})
	if err != nil {
		return err
	}
	keys := q.opts.Keys.Keys()
	q.ops.Complete(q.ops.Invoke(histories.FAssign, nil, keys), histories.OK, nil, nil)
	return nil
}

// Close closes the client (an idle queue has no open transaction); a
// no-op once the queue has ended.
func (q *TxnQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended.Swap(true) {
		return
	}
	if err := client.Bounded("Close", closeGrace, func() error { q.cl.Close(); return nil }); err != nil {
		q.link.sever()
	}
}

// txnRun is one transaction in progress.
type txnRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	pauses          []time.Duration
	first           map[histories.Key]int64 // the first offset its polls read, per key
	commitRequested bool
}

// Step runs plan as one transaction and records it as one txn op, as
// client.TxnQueue.Step does, with the same results: the op's type, and an
// error when the queue cannot go on (client.ErrCrashed,
// client.ErrTxnQueueStopped). A plan it cannot run is refused before
// anything is recorded.
func (q *TxnQueue) Step(ctx context.Context, plan []histories.Mop, pollMax int, pollWait time.Duration) (histories.Type, error) {
	if err := q.opts.CheckPlan(plan); err != nil {
		return "", err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.refuse(); err != nil {
		return "", err
	}
	run := &txnRun{inv: q.ops.Invoke(histories.FTxn, plan, nil), mops: slices.Clone(plan), first: map[histories.Key]int64{}}
	// Drawn in client.TxnQueue's order: a seed means the same dice.
	abort := q.rng.Float64() < q.opts.AbortProbability
	run.pauses = client.IntraTxnPauses(q.rng, len(plan), q.opts.IntraTxnDelay)
	if err := q.cl.BeginTransaction(); err != nil {
		// kgo refuses to begin only in a state it cannot leave
		q.complete(run, histories.Fail, err)
		return histories.Fail, q.stop(err)
	}
	err := q.perform(ctx, run, pollMax, pollWait)
	if err == nil && len(run.pauses) > 0 && !ctxsleep.For(ctx, run.pauses[len(run.pauses)-1]) {
		err = ctx.Err()
	}
	if q.crashReq.Load() {
		return q.crash(run)
	}
	if err == nil && abort {
		err = client.ErrAbortedOnPurpose
	}
	if err == nil {
		// A step whose ctx ended asks for no commit: without one the
		// transaction certainly aborts, and its op is a definite fail.
		err = ctx.Err()
	}
	if err == nil {
		run.commitRequested = true
		err = client.Bounded("EndTransaction(commit)", q.opts.CallTimeout, func() error {
			return q.cl.EndTransaction(context.Background(), kgo.TryCommit)
		})
	}
	return q.end(ctx, run, err)
}

// perform makes the transaction's sends and polls in order, pausing
// before each after the first as the run's pauses say, then flushes the
// sends (within the retry budget) and sets each one's offset; it stops at
// the first error.
func (q *TxnQueue) perform(ctx context.Context, run *txnRun, pollMax int, pollWait time.Duration) error {
	type result struct {
		i      int
		offset int64
		err    error
	}
	results := make(chan result, len(run.mops))
	sent := 0
	var err error
	for i := range run.mops {
		if i > 0 && len(run.pauses) > 0 && !ctxsleep.For(ctx, run.pauses[i-1]) {
			err = ctx.Err()
			break
		}
		m := &run.mops[i]
		if m.F == histories.MSend {
			tp, _ := q.opts.Keys.TP(m.Key)
			r := &kgo.Record{Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.AppendInt(nil, m.Value, 10)}
			q.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) { results <- result{i, r.Offset, err} })
			sent++
			continue
		}
		if err = q.poll(run, m, pollMax, pollWait); err != nil {
			break
		}
	}
	ferr := client.Bounded("Flush", q.opts.RetryBudget, func() error {
		fctx, cancel := context.WithTimeout(context.Background(), q.opts.RetryBudget)
		defer cancel()
		return q.cl.Flush(fctx)
	})
	if ferr != nil {
		return cmp.Or(err, ferr)
	}
	for range sent {
		r := <-results // the flush returned: every promise has been called
		if r.err != nil {
			err = cmp.Or(err, r.err)
			continue
		}
		run.mops[r.i].Offset = r.offset
	}
	return err
}

// poll is one poll mop, as a Java consumer's poll(timeout) is: what the
// client has fetched already, up to max, or the first records to arrive
// within wait.
func (q *TxnQueue) poll(run *txnRun, m *histories.Mop, max int, wait time.Duration) error {
	var fs kgo.Fetches
	err := client.Bounded("PollRecords", wait+quickBound, func() error {
		pctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		fs = q.cl.PollRecords(pctx, max)
		return nil
	})
	if err != nil {
		return err
	}
	m.Records = map[histories.Key][]histories.Record{}
	fs.EachError(func(t string, p int32, e error) {
		if !errors.Is(e, context.DeadlineExceeded) && !errors.Is(e, context.Canceled) && err == nil {
			err = fmt.Errorf("fetch %s[%d]: %w", t, p, e)
		}
	})
	for _, r := range fs.Records() {
		k, ok := q.opts.Keys.Key(kafka.TopicPartition{Topic: &r.Topic, Partition: r.Partition})
		if !ok {
			return fmt.Errorf("franz txn queue: record of %s[%d], which no key maps to", r.Topic, r.Partition)
		}
		v, perr := strconv.ParseInt(string(r.Value), 10, 64)
		if perr != nil {
			return fmt.Errorf("franz txn queue: key %d offset %d: record value %q is not a workload value", k, r.Offset, r.Value)
		}
		m.Records[k] = append(m.Records[k], histories.Record{Offset: r.Offset, Value: v})
		if _, seen := run.first[k]; !seen {
			run.first[k] = r.Offset
		}
	}
	return err
}

// end records the txn op's completion and, unless it committed, aborts
// what may be open and seeks back to the first record each key's polls
// read in it, as client.TxnQueue does. A run that ends (ctx) leaves the
// transaction open to the successor's fence; an abort that fails, or a
// hung call, stops the queue.
func (q *TxnQueue) end(ctx context.Context, run *txnRun, err error) (histories.Type, error) {
	typ := client.TxnOutcome(run.commitRequested, err)
	q.complete(run, typ, err)
	var hang *client.HangError
	switch {
	case typ == histories.OK:
		return typ, nil
	case errors.As(err, &hang):
		return typ, q.stop(err)
	case ctx.Err() != nil:
		return typ, q.stop(fmt.Errorf("left open to the successor's fence: %w", ctx.Err()))
	}
	bound := 3 * q.opts.CallTimeout
	aerr := client.Bounded("EndTransaction(abort)", bound, func() error {
		actx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if err := q.cl.AbortBufferedRecords(actx); err != nil {
			return err
		}
		return q.cl.EndTransaction(actx, kgo.TryAbort)
	})
	if aerr != nil {
		// The producer is stuck in this transaction: a successor
		// fences it and the coordinator aborts what is open.
		return typ, q.stop(fmt.Errorf("abort: %w", aerr))
	}
	q.seekBack(run.first)
	return typ, nil
}

// seekBack moves each key back to the first record a transaction that did
// not commit read of it.
func (q *TxnQueue) seekBack(first map[histories.Key]int64) {
	to := map[string]map[int32]kgo.EpochOffset{}
	for k, off := range first {
		tp, _ := q.opts.Keys.TP(k)
		if to[*tp.Topic] == nil {
			to[*tp.Topic] = map[int32]kgo.EpochOffset{}
		}
		to[*tp.Topic][tp.Partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	if len(to) > 0 {
		q.cl.SetOffsets(to)
	}
}

// complete records the completion of run as typ, with its pauses.
func (q *TxnQueue) complete(run *txnRun, typ histories.Type, err error) {
	op := q.ops.PollCompletion(run.inv, typ, run.mops, err)
	if len(run.pauses) > 0 {
		client.SetExtra(op, client.ExtraIntraTxnDelays, client.PausesJSON(run.pauses))
	}
	q.ops.RecordPoll(op)
}

// crash completes run as info with what it did and ends the queue: the
// transaction stays open until a successor fences it.
func (q *TxnQueue) crash(run *txnRun) (histories.Type, error) {
	q.complete(run, histories.Info, client.ErrCrashed)
	return histories.Info, q.crashNow()
}
