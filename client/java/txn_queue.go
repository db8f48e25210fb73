package java

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
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
	*txnProc
	opts TxnQueueOptions
	rng  *rand.Rand
}

// NewTxnQueue builds the worker for opts.Version if needed (Ensure),
// starts its JVM, initialises transactions (fencing any earlier queue with
// the same transactional.id) and records the assign op of every key.
func NewTxnQueue(ctx context.Context, opts TxnQueueOptions) (*TxnQueue, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cc := opts.Consumer
	cc.Group, cc.Commit, cc.ReadCommitted = "", client.CommitNone, true
	args, err := txnArgs("txn-queue", opts.Producer, cc, opts.Bootstrap, opts.TransactionalID, opts.Process, opts.CallTimeout)
	if err != nil {
		return nil, err
	}
	p, err := startTxnProc(ctx, txnProcOptions{version: opts.Version, role: "txn queue", args: args,
		ops: client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process}, logs: opts.Logs,
		stopped: client.ErrTxnQueueStopped, callTimeout: opts.CallTimeout, retryBudget: opts.RetryBudget})
	if err != nil {
		return nil, err
	}
	q := &TxnQueue{txnProc: p, opts: opts, rng: rand.New(rand.NewSource(opts.Seed))}
	if err := q.open(q.assign); err != nil {
		return nil, fmt.Errorf("java txn queue: %w", err)
	}
	return q, nil
}

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
	return q.intent(histories.FAssign, keys, txnRequest{Op: "assign", Partitions: parts}, quickBound)
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
	if err := q.begin(); err != nil {
		return "", err
	}
	defer q.mu.Unlock()
	run := &txnRun{inv: q.ops.Invoke(histories.FTxn, plan, nil), mops: slices.Clone(plan), begun: true}
	// Drawn in client.TxnQueue's order: a seed means the same dice.
	abort := q.rng.Float64() < q.opts.AbortProbability
	run.pauses = client.IntraTxnPauses(q.rng, len(plan), q.opts.IntraTxnDelay)
	a, err := q.request(txnRequest{Op: "txn", Plan: q.planArg(plan), Max: pollMax, WaitMS: pollWait.Milliseconds(),
		Pauses: pausesArg(run.pauses), BudgetMS: q.retryBudget.Milliseconds()}, q.txnBound(plan, pollWait, run.pauses))
	if err != nil {
		return q.lost(run, err)
	}
	if ferr := q.fold(a.Items, run.mops); ferr != nil {
		return q.lost(run, ferr)
	}
	return q.conclude(ctx, run, a.err("transaction"), abort)
}

// txnBound bounds the JVM's answer to a transaction of plan: its pauses,
// each mop's longest block (a send's wait for metadata, a poll's wait) and
// the wait for the sends' results, plus a margin for the JVM.
func (q *TxnQueue) txnBound(plan []histories.Mop, pollWait time.Duration, pauses []time.Duration) time.Duration {
	d := q.retryBudget + quickBound
	for _, p := range pauses {
		d += p
	}
	return d + time.Duration(len(plan))*(pollWait+q.callTimeout)
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
