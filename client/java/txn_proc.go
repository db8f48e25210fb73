package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// txnProc is what the two transactional workers in a JVM, TxnQueue and
// Copier, share: one history process whose JVM runs a transactional
// producer and a read_committed consumer; its requests, each bounded; how
// a transaction ends (commit, abort, a crash between the two, a JVM that
// hung or exited); and how the process ends. Its methods are for the
// worker's goroutine, holding mu, except Crash, Ended, Crashed,
// NeedsFencing and Close.
type txnProc struct {
	*jvm // Pause and Resume stop it whole (pause-client)
	// Started is how long the JVM took to make its clients.
	Started time.Duration

	ops  client.ConsumerOps // under mu
	logs *client.Logs
	role string // "txn queue", "copier": names the worker
	// stopped is the worker's error once it cannot go on (stop).
	stopped error
	// callTimeout is what each transactional call is given; retryBudget
	// bounds all attempts of one retried call.
	callTimeout, retryBudget time.Duration

	replies chan txnAnswer // answers to requests, routed by answers
	exited  chan struct{}  // closed once the JVM is reaped
	exit    error          // how the JVM ended; read after exited

	mu       sync.Mutex // held for the whole of each step
	lastID   int64
	crashReq atomic.Bool // Crash was called
	crashed  atomic.Bool // a requested crash took effect
	ended    atomic.Bool // crashed, stopped, hung, closed: no op of this process follows
	// unfenced: the worker ended without a clean close, so a
	// transaction of its may still be open.
	unfenced atomic.Bool
}

// txnRequest is one request line of a transactional worker's protocol
// (the worker's source says what each op does).
type txnRequest struct {
	Op         string `json:"op"`
	ID         int64  `json:"id"`
	Topics     string `json:"topics,omitempty"`
	Partitions string `json:"partitions,omitempty"`
	Plan       string `json:"plan,omitempty"`
	Sends      string `json:"sends,omitempty"`
	Offsets    string `json:"offsets,omitempty"`
	Max        int    `json:"max"`
	WaitMS     int64  `json:"wait-ms"`
	Pauses     string `json:"pauses"`
	BudgetMS   int64  `json:"budget-ms"`
	TimeoutMS  int64  `json:"timeout-ms"`
}

// txnAnswer is one line of a transactional worker's JVM.
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

func (a txnAnswer) answerID() int64 { return a.ID }

// txnProcOptions is what starts a txnProc.
type txnProcOptions struct {
	version, role            string
	args                     []string // the JVM's: role, producer. and consumer. configs
	ops                      client.ConsumerOps
	logs                     *client.Logs
	stopped                  error
	callTimeout, retryBudget time.Duration
}

// startTxnProc builds the worker for o.version if needed (Ensure) and
// starts its JVM.
func startTxnProc(ctx context.Context, o txnProcOptions) (*txnProc, error) {
	tc, err := Ensure(ctx, o.version)
	if err != nil {
		return nil, err
	}
	p := &txnProc{ops: o.ops, logs: o.logs, role: o.role, stopped: o.stopped,
		callTimeout: o.callTimeout, retryBudget: o.retryBudget,
		replies: make(chan txnAnswer, 1), exited: make(chan struct{})}
	if p.jvm, err = startJVM(tc, o.args, o.logs, o.role, p.worker()); err != nil {
		return nil, err
	}
	p.Started = p.jvm.started
	go p.answers()
	return p, nil
}

// txnArgs are a transactional worker's JVM arguments: its role, then its
// producer's (transactional.id id) and its consumer's configs, told apart
// by a prefix.
func txnArgs(role string, pc client.ProducerConfig, cc client.ConsumerConfig, bootstrap, id string, process int64, callTimeout time.Duration) ([]string, error) {
	pp, err := TxnProperties(pc, bootstrap, id, callTimeout)
	if err != nil {
		return nil, err
	}
	cp, err := ConsumerProperties(cc, bootstrap, fmt.Sprintf("kafkachaos-%d", process))
	if err != nil {
		return nil, err
	}
	args := []string{"kafkachaos.role=" + role}
	for _, p := range pp {
		args = append(args, "producer."+p)
	}
	for _, p := range cp {
		args = append(args, "consumer."+p)
	}
	return args, nil
}

// open initialises transactions, retried while the retry budget lasts
// (fencing any earlier worker with the same transactional.id), then runs
// join. A failure kills the JVM: nothing of it is open.
func (p *txnProc) open(join func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, err := p.request(txnRequest{Op: "init", BudgetMS: p.retryBudget.Milliseconds()}, p.retryBudget+p.callTimeout)
	if err == nil {
		err = a.err("initTransactions")
	}
	var exc *Exception
	if errors.As(err, &exc) && exc.Class == timeoutException {
		err = fmt.Errorf("%w: %w", client.ErrRetriesExhausted, err)
	}
	if err == nil {
		err = join()
	}
	if err != nil {
		p.halt(err)
	}
	return err
}

// timeoutException is the class of the Java client's timeouts.
const timeoutException = "org.apache.kafka.common.errors.TimeoutException"

// intent records op f of keys, whose request req only notes what the
// consumer is to read (or looks up where), within bound: an exception is
// a definite failure, no answer an unknown outcome.
func (p *txnProc) intent(f string, keys []histories.Key, req txnRequest, bound time.Duration) error {
	inv := p.ops.Invoke(f, nil, keys)
	a, err := p.request(req, bound)
	if err != nil {
		p.ops.Complete(inv, histories.Info, nil, err)
		return err
	}
	if err := a.err(req.Op); err != nil {
		p.ops.Complete(inv, histories.Fail, nil, err)
		return err
	}
	p.ops.Complete(inv, histories.OK, nil, nil)
	return nil
}

// begin takes mu for a step, refusing once the worker has ended:
// client.ErrCrashed after a crash, its stopped error otherwise.
func (p *txnProc) begin() error {
	p.mu.Lock()
	switch {
	case p.crashed.Load():
		p.mu.Unlock()
		return client.ErrCrashed
	case p.ended.Load():
		p.mu.Unlock()
		return p.stopped
	}
	return nil
}

// Process returns the worker's process id.
func (p *txnProc) Process() int64 { return p.ops.Process }

// Ended reports whether the worker has ended: crashed, stopped, hung or
// closed. No op of its process follows.
func (p *txnProc) Ended() bool { return p.ended.Load() }

// Crashed reports whether a crash requested by Crash has taken effect.
func (p *txnProc) Crashed() bool { return p.crashed.Load() }

// NeedsFencing reports whether the worker ended without a clean close: a
// transaction of its may still be open until a successor with the same
// transactional.id fences it. Safe to call from any goroutine.
func (p *txnProc) NeedsFencing() bool { return p.unfenced.Load() }

// Crash requests a crash at the worst moment of the worker's next
// transaction: after its sends (and a copier's offsets), before its
// commit. The open op completes as info, the JVM is killed, and a crash op
// follows; the step returns client.ErrCrashed. Safe to call from any
// goroutine.
func (p *txnProc) Crash() { p.crashReq.Store(true) }

// Close closes the JVM's clients cleanly (an idle worker has no open
// transaction). It is a no-op once the worker has ended.
func (p *txnProc) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended.Swap(true) {
		return
	}
	if err := p.jvm.close(closeTimeout, p.exited, p.role); err != nil {
		// killed: an idle worker has nothing open, so nothing to fence
		p.logs.Log(client.LogLine{Time: time.Now(), Worker: p.worker(), Level: 3, Client: "java", Message: err.Error()})
	}
}

// worker names the worker in its log lines.
func (p *txnProc) worker() string {
	return "java " + p.role + " " + processList([]int64{p.ops.Process})
}

// answers routes the JVM's answers until it exits, then reaps it.
func (p *txnProc) answers() {
	defer close(p.exited)
	for p.jvm.lines.Scan() {
		var a txnAnswer
		if json.Unmarshal(p.jvm.lines.Bytes(), &a) == nil && a.ID != 0 {
			p.replies <- a // one request at a time: never blocks for long
		}
	}
	p.exit = p.jvm.reap()
}

// request sends req and waits for its answer, at most bound and a grace:
// its error is a *client.HangError past that, or errJVMGone.
func (p *txnProc) request(req txnRequest, bound time.Duration) (txnAnswer, error) {
	p.lastID++
	req.ID = p.lastID
	return ask(p.jvm, req, req.ID, req.Op, bound, p.replies, p.exited, &p.exit)
}

// txnRun is one transaction in progress.
type txnRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	pauses          []time.Duration
	begun           bool // the JVM was asked to begin it
	commitRequested bool
}

// conclude ends a begun transaction whose work ended with err: a requested
// crash lands here, before the commit; otherwise the transaction commits,
// unless err or abort (on purpose) say it must not, and end records it.
func (p *txnProc) conclude(ctx context.Context, run *txnRun, err error, abort bool) (histories.Type, error) {
	if p.crashReq.Load() {
		return p.crash(run)
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
		a, rerr := p.request(txnRequest{Op: "commit", BudgetMS: p.retryBudget.Milliseconds()}, p.retryBudget+p.callTimeout)
		if rerr != nil {
			return p.lost(run, rerr)
		}
		err = a.err("commitTransaction")
	}
	return p.end(ctx, run, err)
}

// end records the txn op's completion and, unless it committed, aborts
// the transaction if it was begun (the JVM's abort of a queue also seeks
// back). A run that ends (ctx) leaves a begun transaction open to the
// successor's fence; an abort that fails stops the worker. It returns the
// op's type, and an error once the worker stopped.
func (p *txnProc) end(ctx context.Context, run *txnRun, err error) (histories.Type, error) {
	typ := TxnOutcome(run.commitRequested, false, err)
	p.complete(run, typ, err)
	if typ == histories.OK || !run.begun {
		return typ, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return typ, p.stop(fmt.Errorf("left open to the successor's fence: %w", cerr))
	}
	bound := 3 * p.callTimeout
	a, rerr := p.request(txnRequest{Op: "abort", BudgetMS: bound.Milliseconds()}, bound+p.callTimeout)
	if rerr == nil {
		rerr = a.err("abortTransaction")
	}
	if rerr != nil {
		// The producer is stuck in this transaction: a successor
		// fences it and the coordinator aborts what is open.
		return typ, p.stop(fmt.Errorf("abort: %w", rerr))
	}
	return typ, nil
}

// complete records the completion of run as typ, with its pauses.
func (p *txnProc) complete(run *txnRun, typ histories.Type, err error) {
	op := p.ops.PollCompletion(run.inv, typ, run.mops, err)
	if len(run.pauses) > 0 {
		client.SetExtra(op, client.ExtraIntraTxnDelays, client.PausesJSON(run.pauses))
	}
	p.ops.RecordPoll(op)
}

// lost completes run after a request that ended the JVM's usefulness: a
// hang (the op is as client.TxnOutcome says for the stage, a client-hang
// op follows, the worker stops), a JVM that exited unasked (info, a crash
// op follows), or an answer it cannot read (the worker stops).
func (p *txnProc) lost(run *txnRun, err error) (histories.Type, error) {
	gone := errors.Is(err, errJVMGone)
	typ := TxnOutcome(run.commitRequested, gone, err)
	p.complete(run, typ, err)
	if gone {
		p.halt(err)
		return typ, fmt.Errorf("%w: %w", client.ErrCrashed, err)
	}
	return typ, p.stop(err)
}

// crash completes run as info with what it did, kills the JVM and
// records the crash op: the transaction stays open until a successor
// fences it.
func (p *txnProc) crash(run *txnRun) (histories.Type, error) {
	p.complete(run, histories.Info, client.ErrCrashed)
	p.halt(client.ErrCrashed)
	p.crashed.Store(true)
	return histories.Info, client.ErrCrashed
}

// stop ends the worker after err, which it cannot step past; the JVM is
// killed, so a successor can take over at once and fence what may be open.
func (p *txnProc) stop(err error) error {
	p.halt(err)
	return fmt.Errorf("%w: %w", p.stopped, err)
}

// halt kills the JVM and records the process's last op for why: a
// client-hang op for a hang, a crash op for a crash or a JVM that exited
// unasked; none for an error the worker stops at.
func (p *txnProc) halt(why error) {
	p.ended.Store(true)
	p.unfenced.Store(true)
	p.jvm.kill()
	<-p.exited
	var hang *client.HangError
	switch {
	case errors.As(why, &hang):
		p.record(histories.FClientHang, hang.Value())
	case errors.Is(why, client.ErrCrashed):
		p.record(histories.FCrash, crashJSON(killed()))
	case errors.Is(why, errJVMGone):
		p.record(histories.FCrash, crashJSON(crashValue{Exit: fmt.Sprint(p.exit)}))
	}
}

// record records the process's last op, f with value.
func (p *txnProc) record(f string, value json.RawMessage) {
	p.ops.Recorder.Record(&histories.Op{Process: p.ops.Process, Type: histories.Info, F: f, Group: p.ops.Group, Value: value})
}
