package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// CopierOptions configures a Copier: what configures a client.Copier,
// and the kafka-clients release.
type CopierOptions struct {
	client.CopierOptions
	// Version is the kafka-clients release; "" means kafkadist.Version().
	Version string
}

// Copier is client.Copier's transactional consume-transform-produce
// process, played by a read_committed KafkaConsumer of the group (no
// automatic commit) and a transactional KafkaProducer in a JVM of their
// own. Each Step is one transaction, recorded as one txn op exactly as
// client.Copier records it: the poll, one send per record read (its copy,
// or its poison when the transaction aborts on purpose; the same seed
// draws the same aborts), the commit of the next offsets, and the type
// TxnOutcome gives the stage it ended at.
//
// The JVM is asked to poll, then to begin the transaction, make the sends
// and add the offsets to it with the group's metadata (one request), then
// to commit or abort it; a requested crash (SIGKILL) lands between the
// last two. After a step that did not commit, the JVM seeks each assigned
// partition back to the group's committed offset. The at-least-once mode
// is not built. Step runs one transaction at a time; Crash may be called
// from any goroutine.
type Copier struct {
	*txnProc
	opts CopierOptions
	in   *client.KeyMap // the input keys
	rng  *rand.Rand
}

// errRevokedInTxn fails a step during whose poll partitions were revoked:
// the offsets of revoked keys are no longer the copier's to commit.
var errRevokedInTxn = errors.New("partitions revoked during the transaction")

// NewCopier builds the worker for opts.Version if needed (Ensure), starts
// its JVM, initialises transactions (fencing any earlier copier with the
// same transactional.id) and records the assign or subscribe op, as
// client.NewCopier does.
func NewCopier(ctx context.Context, opts CopierOptions) (*Copier, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Mode != client.CopyTransactional {
		return nil, fmt.Errorf("java copier: Mode = %q: the java copier copies %q only", opts.Mode, client.CopyTransactional)
	}
	in, err := opts.Inputs()
	if err != nil {
		return nil, err
	}
	cc := opts.Consumer
	cc.Group, cc.Commit, cc.ReadCommitted = opts.Group, client.CommitNone, true
	args, err := txnArgs("copier", opts.Producer, cc, opts.Bootstrap, opts.TransactionalID, opts.Process, opts.CallTimeout)
	if err != nil {
		return nil, err
	}
	p, err := startTxnProc(ctx, txnProcOptions{version: opts.Version, role: "copier", args: args,
		ops: client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process, Group: opts.Group}, logs: opts.Logs,
		stopped: client.ErrCopierStopped, callTimeout: opts.CallTimeout, retryBudget: opts.RetryBudget})
	if err != nil {
		return nil, err
	}
	cp := &Copier{txnProc: p, opts: opts, in: in, rng: rand.New(rand.NewSource(opts.Seed))}
	join := cp.assign
	if opts.Subscribe {
		join = cp.subscribe
	}
	if err := cp.open(join); err != nil {
		return nil, fmt.Errorf("java copier: %w", err)
	}
	return cp, nil
}

// assign takes the input keys at the group's committed offsets (the
// beginning where none): a copier resumes where the group left off.
func (cp *Copier) assign() error {
	keys := cp.in.Keys()
	parts, err := offsetsArg(cp.in, zeros(keys))
	if err != nil {
		return err
	}
	return cp.intent(histories.FAssign, keys, txnRequest{Op: "assign", Partitions: parts,
		TimeoutMS: cp.callTimeout.Milliseconds()}, quickBound+cp.callTimeout)
}

// subscribe joins the group on the input keys' topics; assignments arrive
// during later polls and are recorded on the txn ops.
func (cp *Copier) subscribe() error {
	return cp.intent(histories.FSubscribe, cp.in.Keys(), txnRequest{Op: "subscribe", Topics: strings.Join(cp.in.Topics(), ",")}, quickBound)
}

// zeros is offset 0 of each key, for a request that reads only the
// partitions.
func zeros(keys []histories.Key) map[histories.Key]int64 {
	out := make(map[histories.Key]int64, len(keys))
	for _, k := range keys {
		out[k] = 0
	}
	return out
}

// Step runs one transaction, as client.Copier.Step does, with the same
// results: it reads up to max input records, waiting at most wait, copies
// them and commits them with their offsets, or aborts; it returns the txn
// op's type, and an error when the copier cannot go on (client.ErrCrashed,
// client.ErrCopierStopped). A step that read nothing records an ok txn
// with an empty poll and begins no transaction.
func (cp *Copier) Step(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	if err := cp.begin(); err != nil {
		return "", err
	}
	defer cp.mu.Unlock()
	run := &txnRun{inv: cp.ops.Invoke(histories.FTxn, []histories.Mop{{F: histories.MPoll}}, nil)}
	got, err, lost := cp.poll(run, max, wait)
	if lost != nil {
		return cp.lost(run, lost)
	}
	if err == nil && cp.ops.Rebalance != nil && len(cp.ops.Rebalance.Revoked) > 0 && got.N > 0 {
		err = errRevokedInTxn
	}
	if err != nil || got.N == 0 {
		return cp.finish(ctx, run, err)
	}
	abort := cp.rng.Float64() < cp.opts.AbortProbability
	sends, err := client.CopySends(got.Records, cp.opts.Pairs, abort, run.inv.Index)
	if err != nil {
		typ, _ := cp.finish(ctx, run, err)
		return typ, cp.stop(err)
	}
	return cp.txn(ctx, run, got, sends, abort)
}

// poll asks the JVM for up to max records within wait and sets run's poll
// mop. It returns what was read, the poll's exception, and lost: an error
// that ends the copier (no answer, or one it cannot read).
func (cp *Copier) poll(run *txnRun, max int, wait time.Duration) (got *client.Fetched, exc, lost error) {
	cp.ops.Rebalance, cp.ops.Dropped = nil, nil
	got = client.NewFetched()
	run.mops = []histories.Mop{{F: histories.MPoll, Records: got.Records}}
	a, err := cp.request(txnRequest{Op: "poll", Max: max, WaitMS: wait.Milliseconds()}, wait+quickBound)
	if err != nil {
		return got, nil, err
	}
	if err := foldPoll(&cp.ops, cp.in, a.Items, got, nil, func(k histories.Key) { cp.ops.DropRevoked(k, got) }); err != nil {
		return got, nil, err
	}
	// DropRevoked may have taken records out.
	run.mops[0].Records = got.Records
	return got, a.err("poll"), nil
}

// txn asks the JVM to begin the transaction, send the copies and add the
// next offsets of got to it, then concludes it.
func (cp *Copier) txn(ctx context.Context, run *txnRun, got *client.Fetched, sends []histories.Mop, abort bool) (histories.Type, error) {
	sendArg, err := cp.sendsArg(sends)
	offs, oerr := offsetsArg(cp.in, got.Next)
	if err = errors.Join(err, oerr); err != nil {
		typ, _ := cp.finish(ctx, run, err)
		return typ, cp.stop(err)
	}
	run.begun = true
	// beginTransaction, the first send's wait for metadata and
	// sendOffsetsToTransaction may each block a call timeout
	// (max.block.ms); the sends' results are awaited within the budget.
	a, err := cp.request(txnRequest{Op: "txn", Sends: sendArg, Offsets: offs, BudgetMS: cp.retryBudget.Milliseconds()},
		cp.retryBudget+3*cp.callTimeout+quickBound)
	run.mops = append(run.mops, sends...)
	if err != nil {
		return cp.lost(run, err)
	}
	return cp.concludeTxn(ctx, run, a, got, len(sends), abort)
}

// concludeTxn folds the txn's answer a into run (the sends' offsets, and
// the commit mop once every send landed) and concludes the transaction,
// rewinding the consumer unless it committed.
func (cp *Copier) concludeTxn(ctx context.Context, run *txnRun, a txnAnswer, got *client.Fetched, n int, abort bool) (histories.Type, error) {
	landed, err := foldSent(a.Items, run.mops[1:])
	if err != nil {
		return cp.lost(run, err)
	}
	if landed == n {
		run.mops = append(run.mops, histories.Mop{F: histories.MCommit, Offsets: got.Next})
	}
	typ, err := cp.conclude(ctx, run, a.err("transaction"), abort)
	if typ == histories.OK || err != nil {
		return typ, err
	}
	return typ, cp.rewind()
}

// finish records the txn op's completion and, unless it committed, aborts
// what may be open and rewinds the consumer to the group's committed
// offsets.
func (cp *Copier) finish(ctx context.Context, run *txnRun, err error) (histories.Type, error) {
	typ, err := cp.end(ctx, run, err)
	if typ == histories.OK || err != nil {
		return typ, err
	}
	return typ, cp.rewind()
}

// rewind seeks every assigned key back to the group's committed offset
// (its beginning where none), dropping what uncommitted steps read. A
// rewind that fails stops the copier.
func (cp *Copier) rewind() error {
	a, err := cp.request(txnRequest{Op: "rewind", TimeoutMS: cp.callTimeout.Milliseconds()}, quickBound+cp.callTimeout)
	if err == nil {
		err = a.err("rewind")
	}
	if err != nil {
		return cp.stop(fmt.Errorf("rewind: %w", err))
	}
	return nil
}

// sendsArg writes sends as the JVM reads them: "T:P:V" each.
func (cp *Copier) sendsArg(sends []histories.Mop) (string, error) {
	parts := make([]string, len(sends))
	for i, m := range sends {
		tp, ok := cp.opts.Keys.TP(m.Key)
		if !ok {
			return "", fmt.Errorf("java copier: output key %d is not in the key map", m.Key)
		}
		parts[i] = fmt.Sprintf("%s:%d:%d", *tp.Topic, tp.Partition, m.Value)
	}
	return strings.Join(parts, ","), nil
}

// foldSent sets each send's offset from a txn's ["sent",I,OFFSET] items
// and returns how many landed.
func foldSent(items [][]json.RawMessage, sends []histories.Mop) (int, error) {
	n := 0
	for _, it := range items {
		var kind string
		var i int
		if len(it) != 3 || json.Unmarshal(it[0], &kind) != nil || kind != "sent" ||
			json.Unmarshal(it[1], &i) != nil || i < 0 || i >= len(sends) || json.Unmarshal(it[2], &sends[i].Offset) != nil {
			return n, fmt.Errorf("java copier: unreadable item %s", it)
		}
		n++
	}
	return n, nil
}
