package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// TxnQueueOptions configures a TxnQueue: what configures a
// client.TxnQueue, and the kafka-clients release.
type TxnQueueOptions struct {
	client.TxnQueueOptions
	// Version is the kafka-clients release; "" means kafkadist.Version().
	Version string
}

// TxnQueue is client.TxnQueue's process of Jepsen's queue workload with
// transactions, played by a Java KafkaProducer (transactional) and a
// read_committed KafkaConsumer (every key assigned from its beginning, no
// group) in a JVM of their own. Each Step is one transaction, recorded as
// one txn op exactly as client.TxnQueue records it (TxnOutcome): the same
// seed draws the same aborts and the same intra-transaction pauses.
//
// The JVM runs a transaction's mops and pauses in one request, then the
// harness asks it to commit or abort: a requested crash lands between the
// two, after the sends and polls and before the commit, as
// client.TxnQueue's does. Crash is SIGKILL of the JVM. Step runs one
// transaction at a time; Crash may be called from any goroutine.
type TxnQueue struct {
	opts TxnQueueOptions
	ops  client.ConsumerOps // under mu
	rng  *rand.Rand
	*jvm // Pause and Resume stop it whole (pause-client)
	// Started is how long the JVM took to make its clients.
	Started time.Duration

	replies chan txnAnswer // answers to requests, routed by answers
	exited  chan struct{}  // closed once the JVM is reaped
	exit    error          // how the JVM ended; read after exited

	mu       sync.Mutex // held for the whole of each step
	lastID   int64
	crashReq atomic.Bool // Crash was called
	crashed  atomic.Bool // a requested crash took effect
	ended    atomic.Bool // crashed, stopped, hung, closed: no op of this process follows
	// unfenced: the queue ended without a clean close, so a transaction
	// of its may still be open.
	unfenced atomic.Bool
}

// txnRequest is one request line of the queue's protocol (the worker's
// source says what each op does).
type txnRequest struct {
	Op         string `json:"op"`
	ID         int64  `json:"id"`
	Partitions string `json:"partitions,omitempty"`
	Plan       string `json:"plan,omitempty"`
	Max        int    `json:"max"`
	WaitMS     int64  `json:"wait-ms"`
	Pauses     string `json:"pauses"`
	BudgetMS   int64  `json:"budget-ms"`
}

// txnAnswer is one line of the queue's JVM.
type txnAnswer struct {
	ID      int64               `json:"id"`
	Error   string              `json:"error"`
	Message string              `json:"message"`
	Items   [][]json.RawMessage `json:"items"`
}

// err is the answer's exception, raised by call; nil when there is none.
func (a txnAnswer) err(call string) error {
	if a.Error == "" {
		return nil
	}
	return &Exception{Class: a.Error, Message: a.Message, Call: call}
}

// NewTxnQueue builds the worker for opts.Version if needed (Ensure),
// starts its JVM, initialises transactions (fencing any earlier queue with
// the same transactional.id) and records the assign op of every key.
func NewTxnQueue(ctx context.Context, opts TxnQueueOptions) (*TxnQueue, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	args, err := txnArgs(opts)
	if err != nil {
		return nil, err
	}
	tc, err := Ensure(ctx, opts.Version)
	if err != nil {
		return nil, err
	}
	q := &TxnQueue{opts: opts, ops: client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process},
		rng: rand.New(rand.NewSource(opts.Seed)), replies: make(chan txnAnswer, 1), exited: make(chan struct{})}
	if q.jvm, err = startJVM(tc, args, opts.Logs, "txn queue", q.worker()); err != nil {
		return nil, err
	}
	q.Started = q.jvm.started
	go q.answers()
	if err := q.open(); err != nil {
		return nil, fmt.Errorf("java txn queue: %w", err)
	}
	return q, nil
}

// txnArgs are the JVM's arguments: its role, then its producer's and its
// consumer's configs, told apart by a prefix.
func txnArgs(opts TxnQueueOptions) ([]string, error) {
	pp, err := TxnProperties(opts.Producer, opts.Bootstrap, opts.TransactionalID, opts.CallTimeout)
	if err != nil {
		return nil, err
	}
	cc := opts.Consumer
	cc.Group, cc.Commit, cc.ReadCommitted = "", client.CommitNone, true
	cp, err := ConsumerProperties(cc, opts.Bootstrap, fmt.Sprintf("kafkachaos-%d", opts.Process))
	if err != nil {
		return nil, err
	}
	args := []string{"kafkachaos.role=txn-queue"}
	for _, p := range pp {
		args = append(args, "producer."+p)
	}
	for _, p := range cp {
		args = append(args, "consumer."+p)
	}
	return args, nil
}

// open initialises transactions, retried while the retry budget lasts,
// and assigns every key. A failure kills the JVM: nothing of it is open.
func (q *TxnQueue) open() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	budget := q.opts.RetryBudget
	a, err := q.request(txnRequest{Op: "init", BudgetMS: budget.Milliseconds()}, budget+q.opts.CallTimeout)
	if err == nil {
		err = a.err("initTransactions")
	}
	var exc *Exception
	if errors.As(err, &exc) && exc.Class == timeoutException {
		err = fmt.Errorf("%w: %w", client.ErrRetriesExhausted, err)
	}
	if err == nil {
		err = q.assign()
	}
	if err != nil {
		q.halt(err)
	}
	return err
}

// timeoutException is the class of the Java client's timeouts.
const timeoutException = "org.apache.kafka.common.errors.TimeoutException"

// assign records the assign op of every key; the Java client only notes
// the assignment, so an exception is a definite failure.
func (q *TxnQueue) assign() error {
	keys := q.opts.Keys.Keys()
	offs := make(map[histories.Key]int64, len(keys))
	for _, k := range keys {
		offs[k] = 0
	}
	parts, err := offsetsArg(q.opts.Keys, offs)
	if err != nil {
		return err
	}
	inv := q.ops.Invoke(histories.FAssign, nil, keys)
	a, err := q.request(txnRequest{Op: "assign", Partitions: parts}, quickBound)
	if err != nil {
		q.ops.Complete(inv, histories.Info, nil, err)
		return err
	}
	if err := a.err("assign"); err != nil {
		q.ops.Complete(inv, histories.Fail, nil, err)
		return err
	}
	q.ops.Complete(inv, histories.OK, nil, nil)
	return nil
}

// Process returns the queue's process id.
func (q *TxnQueue) Process() int64 { return q.opts.Process }

// Ended reports whether the queue has ended: crashed, stopped, hung or
// closed. No op of its process follows.
func (q *TxnQueue) Ended() bool { return q.ended.Load() }

// Crashed reports whether a crash requested by Crash has taken effect.
func (q *TxnQueue) Crashed() bool { return q.crashed.Load() }

// NeedsFencing reports whether the queue ended without a clean close: a
// transaction of its may still be open until a successor with the same
// transactional.id fences it. Safe to call from any goroutine.
func (q *TxnQueue) NeedsFencing() bool { return q.unfenced.Load() }

// Crash requests a crash at the worst moment of the queue's next
// transaction: after its sends and polls, before its commit. The open op
// completes as info, the JVM is killed, and a crash op follows; the step
// returns client.ErrCrashed. Safe to call from any goroutine.
func (q *TxnQueue) Crash() { q.crashReq.Store(true) }

// Close closes the JVM's clients cleanly (an idle queue has no open
// transaction). It is a no-op once the queue has ended.
func (q *TxnQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended.Swap(true) {
		return
	}
	if err := q.jvm.close(closeTimeout, q.exited, "txn queue"); err != nil {
		// killed: an idle queue has nothing open, so nothing to fence
		q.opts.Logs.Log(client.LogLine{Time: time.Now(), Worker: q.worker(), Level: 3, Client: "java", Message: err.Error()})
	}
}

// worker names the queue in its log lines.
func (q *TxnQueue) worker() string { return "java txn queue " + processList([]int64{q.opts.Process}) }

// answers routes the JVM's answers until it exits, then reaps it.
func (q *TxnQueue) answers() {
	defer close(q.exited)
	for q.jvm.lines.Scan() {
		var a txnAnswer
		if json.Unmarshal(q.jvm.lines.Bytes(), &a) == nil && a.ID != 0 {
			q.replies <- a // one request at a time: never blocks for long
		}
	}
	q.exit = q.jvm.reap()
}

// request sends req and waits for its answer, at most bound and a grace:
// its error is a *client.HangError past that, or errJVMGone.
func (q *TxnQueue) request(req txnRequest, bound time.Duration) (txnAnswer, error) {
	q.lastID++
	req.ID = q.lastID
	return ask(q.jvm, req, req.ID, req.Op, bound, q.replies, q.exited, &q.exit)
}

func (a txnAnswer) answerID() int64 { return a.ID }

// txnRun is one transaction in progress.
type txnRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	pauses          []time.Duration
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
	switch {
	case q.crashed.Load():
		return "", client.ErrCrashed
	case q.ended.Load():
		return "", client.ErrTxnQueueStopped
	}
	run := &txnRun{inv: q.ops.Invoke(histories.FTxn, plan, nil), mops: slices.Clone(plan)}
	// Drawn in client.TxnQueue's order: a seed means the same dice.
	abort := q.rng.Float64() < q.opts.AbortProbability
	run.pauses = client.IntraTxnPauses(q.rng, len(plan), q.opts.IntraTxnDelay)
	budget := q.opts.RetryBudget
	a, err := q.request(txnRequest{Op: "txn", Plan: q.planArg(plan), Max: pollMax, WaitMS: pollWait.Milliseconds(),
		Pauses: pausesArg(run.pauses), BudgetMS: budget.Milliseconds()}, q.txnBound(plan, pollWait, run.pauses))
	if err != nil {
		return q.lost(run, err)
	}
	if ferr := q.fold(a.Items, run.mops); ferr != nil {
		return q.lost(run, ferr)
	}
	err = a.err("transaction")
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
		if a, err = q.request(txnRequest{Op: "commit", BudgetMS: budget.Milliseconds()}, budget+q.opts.CallTimeout); err != nil {
			return q.lost(run, err)
		}
		err = a.err("commitTransaction")
	}
	return q.end(ctx, run, err)
}

// txnBound bounds the JVM's answer to a transaction of plan: its pauses,
// each mop's longest block (a send's wait for metadata, a poll's wait) and
// the wait for the sends' results, plus a margin for the JVM.
func (q *TxnQueue) txnBound(plan []histories.Mop, pollWait time.Duration, pauses []time.Duration) time.Duration {
	d := q.opts.RetryBudget + quickBound
	for _, p := range pauses {
		d += p
	}
	return d + time.Duration(len(plan))*(pollWait+q.opts.CallTimeout)
}

// end records the txn op's completion and, unless it committed, aborts
// what may be open and seeks the consumer back to where the next
// transaction must read from, as client.TxnQueue does. A run that ends
// (ctx) leaves the transaction open to the successor's fence; an abort
// that fails stops the queue.
func (q *TxnQueue) end(ctx context.Context, run *txnRun, err error) (histories.Type, error) {
	typ := TxnOutcome(run.commitRequested, false, err)
	q.complete(run, typ, err)
	if typ == histories.OK {
		return typ, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return typ, q.stop(fmt.Errorf("left open to the successor's fence: %w", cerr))
	}
	bound := 3 * q.opts.CallTimeout
	a, rerr := q.request(txnRequest{Op: "abort", BudgetMS: bound.Milliseconds()}, bound+q.opts.CallTimeout)
	if rerr == nil {
		rerr = a.err("abortTransaction")
	}
	if rerr != nil {
		// The producer is stuck in this transaction: a successor
		// fences it and the coordinator aborts what is open.
		return typ, q.stop(fmt.Errorf("abort: %w", rerr))
	}
	return typ, nil
}

// complete records the completion of run as typ, with its pauses.
func (q *TxnQueue) complete(run *txnRun, typ histories.Type, err error) {
	op := q.ops.PollCompletion(run.inv, typ, run.mops, err)
	if len(run.pauses) > 0 {
		client.SetExtra(op, client.ExtraIntraTxnDelays, client.PausesJSON(run.pauses))
	}
	q.ops.RecordPoll(op)
}

// lost completes run after a request that ended the JVM's usefulness: a
// hang (the op is as client.TxnOutcome says for the stage, a client-hang
// op follows, the queue stops), a JVM that exited unasked (info, a crash
// op follows), or an answer it cannot read (the queue stops).
func (q *TxnQueue) lost(run *txnRun, err error) (histories.Type, error) {
	gone := errors.Is(err, errJVMGone)
	typ := TxnOutcome(run.commitRequested, gone, err)
	q.complete(run, typ, err)
	if gone {
		q.halt(err)
		return typ, fmt.Errorf("%w: %w", client.ErrCrashed, err)
	}
	return typ, q.stop(err)
}

// crash completes run as info with what it did, kills the JVM and
// records the crash op: the transaction stays open until a successor
// fences it.
func (q *TxnQueue) crash(run *txnRun) (histories.Type, error) {
	q.complete(run, histories.Info, client.ErrCrashed)
	q.halt(client.ErrCrashed)
	q.crashed.Store(true)
	return histories.Info, client.ErrCrashed
}

// stop ends the queue after err, which it cannot step past; the JVM is
// killed, so a successor can take over at once and fence what may be open.
func (q *TxnQueue) stop(err error) error {
	q.halt(err)
	return fmt.Errorf("%w: %w", client.ErrTxnQueueStopped, err)
}

// halt kills the JVM and records the process's last op for why: a
// client-hang op for a hang, a crash op for a crash or a JVM that exited
// unasked; none for an error the queue stops at.
func (q *TxnQueue) halt(why error) {
	q.ended.Store(true)
	q.unfenced.Store(true)
	q.jvm.kill()
	<-q.exited
	var hang *client.HangError
	switch {
	case errors.As(why, &hang):
		q.record(histories.FClientHang, hangJSON(hang))
	case errors.Is(why, client.ErrCrashed):
		q.record(histories.FCrash, crashJSON(killed()))
	case errors.Is(why, errJVMGone):
		q.record(histories.FCrash, crashJSON(crashValue{Exit: fmt.Sprint(q.exit)}))
	}
}

// record records the process's last op, f with value.
func (q *TxnQueue) record(f string, value json.RawMessage) {
	q.opts.Recorder.Record(&histories.Op{Process: q.opts.Process, Type: histories.Info, F: f, Value: value})
}

// planArg writes plan as the JVM reads it: "s:T:P:V" per send, "p" per
// poll. CheckPlan has proven every key is mapped.
func (q *TxnQueue) planArg(plan []histories.Mop) string {
	parts := make([]string, len(plan))
	for i, m := range plan {
		parts[i] = "p"
		if m.F == histories.MSend {
			tp, _ := q.opts.Keys.TP(m.Key)
			parts[i] = fmt.Sprintf("s:%s:%d:%d", *tp.Topic, tp.Partition, m.Value)
		}
	}
	return strings.Join(parts, ",")
}

// pausesArg writes pauses as whole milliseconds, comma-separated.
func pausesArg(pauses []time.Duration) string {
	ms := make([]string, len(pauses))
	for i, p := range pauses {
		ms[i] = strconv.FormatInt(p.Milliseconds(), 10)
	}
	return strings.Join(ms, ",")
}

// fold sets, from a transaction's items, each send's offset and each poll
// mop's records.
func (q *TxnQueue) fold(items [][]json.RawMessage, mops []histories.Mop) error {
	poll := -1
	for _, it := range items {
		var kind string
		if len(it) < 2 || json.Unmarshal(it[0], &kind) != nil {
			return fmt.Errorf("java txn queue: unreadable item %s", it)
		}
		switch kind {
		case "poll":
			if json.Unmarshal(it[1], &poll) != nil || poll < 0 || poll >= len(mops) {
				return fmt.Errorf("java txn queue: unreadable item %s", it)
			}
			mops[poll].Records = map[histories.Key][]histories.Record{}
		case "sent":
			var i int
			if len(it) != 3 || json.Unmarshal(it[1], &i) != nil || i < 0 || i >= len(mops) || json.Unmarshal(it[2], &mops[i].Offset) != nil {
				return fmt.Errorf("java txn queue: unreadable item %s", it)
			}
		case "rec":
			if poll < 0 {
				return fmt.Errorf("java txn queue: record %s outside a poll", it)
			}
			k, r, err := recordItem(q.opts.Keys, it)
			if err != nil {
				return err
			}
			mops[poll].Records[k] = append(mops[poll].Records[k], r)
		}
	}
	return nil
}
