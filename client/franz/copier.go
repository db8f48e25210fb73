package franz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Copier is client.Copier's consume-transform-produce process played by
// franz-go's own recipe for it, a kgo.GroupTransactSession: a group member
// reading its input keys read_committed and producing their copies in a
// transaction that commits the consumed offsets with it. Each Step is one
// txn op recorded as client.Copier records it, with the same values (the
// copy and poison scheme of client.CopierOptions) and the same abort dice.
//
// The session decides at its end whether it may commit: a rebalance during
// the transaction, or offsets the coordinator refused, make it abort
// instead. Its log line "transaction session ending" says whether it
// sent EndTxn(commit) (will_try_commit): a transaction it ended without
// trying is a definite fail, one it tried and then reported uncommitted
// (it retries an unconfirmed commit as an abort) is info.
//
// Only subscribing, transactional copiers are built: the session needs a
// group member, and an at-least-once copier is librdkafka's negative
// control. A requested crash lands after the sends, before the end, as
// client.Copier's does: the connections are cut first, the transaction is
// left to the successor's fence.
type Copier struct {
	txnLife
	opts  client.CopierOptions
	in    *client.KeyMap // the input keys
	sess  *kgo.GroupTransactSession
	moves *moves
	ops   client.ConsumerOps // under mu
	rng   *rand.Rand
	// triedCommit is the session's own word, from its log, on whether
	// the last End sent EndTxn(commit).
	triedCommit atomic.Bool

	mu sync.Mutex // held for the whole of each step
}

// NewCopier makes the session, loads its producer id (fencing any earlier
// copier with the same transactional.id, within the retry budget) and
// records the subscribe op of its input keys.
func NewCopier(ctx context.Context, opts client.CopierOptions) (*Copier, error) {
	if err := validateCopier(&opts); err != nil {
		return nil, err
	}
	in, err := inputKeys(opts)
	if err != nil {
		return nil, err
	}
	cp := &Copier{opts: opts, in: in, moves: &moves{keys: in}, rng: rand.New(rand.NewSource(opts.Seed)),
		ops:     client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process, Group: opts.Group},
		txnLife: txnLife{process: opts.Process, group: opts.Group, rec: opts.Recorder, link: &link{}, stopped: client.ErrCopierStopped}}
	kopts, err := cp.options()
	if err != nil {
		return nil, err
	}
	if cp.sess, err = kgo.NewGroupTransactSession(kopts...); err != nil {
		return nil, fmt.Errorf("franz copier: %w", err)
	}
	cp.close = cp.sess.Close
	if err := cp.open(ctx); err != nil {
		cp.halt(err)
		return nil, fmt.Errorf("franz copier: %w", err)
	}
	return cp, nil
}

// validateCopier refuses what the franz-go copier does not play.
func validateCopier(o *client.CopierOptions) error {
	switch {
	case o.Mode != "" && o.Mode != client.CopyTransactional:
		return fmt.Errorf("franz copier: mode %q: only transactional copying is built", o.Mode)
	case !o.Subscribe:
		return errors.New("franz copier: it joins its group by subscribing; assigning is not built")
	case o.Keys == nil || o.Recorder == nil || o.TransactionalID == "" || o.Group == "" || len(o.Pairs) == 0:
		return errors.New("franz copier: Keys, Recorder, TransactionalID, Group and Pairs are required")
	}
	o.Mode = client.CopyTransactional
	// the queue's defaults are the copier's
	q := client.TxnQueueOptions{Keys: o.Keys, Recorder: o.Recorder, TransactionalID: o.TransactionalID,
		CallTimeout: o.CallTimeout, RetryBudget: o.RetryBudget}
	err := q.Validate()
	o.CallTimeout, o.RetryBudget = q.CallTimeout, q.RetryBudget
	return err
}

// inputKeys is the key map of opts' input keys.
func inputKeys(opts client.CopierOptions) (*client.KeyMap, error) {
	m := map[histories.Key]client.TopicPartition{}
	for k := range opts.Pairs {
		tp, ok := opts.Keys.TP(k)
		if !ok {
			return nil, fmt.Errorf("franz copier: input key %d is not in the key map", k)
		}
		m[k] = client.TopicPartition{Topic: *tp.Topic, Partition: tp.Partition}
	}
	return client.NewKeyMap(m)
}

// options are the session's kgo options: a transactional producer, a
// read_committed group member of the input topics, the group's moves
// noted for the poll op, the session's log read for its commit decision.
func (cp *Copier) options() ([]kgo.Opt, error) {
	o := cp.opts
	pc := o.Producer
	pc.TransactionalID, pc.Idempotence, pc.Acks = "", true, "all"
	kopts, err := Options(pc, o.Bootstrap)
	if err != nil {
		return nil, err
	}
	kopts = append(kopts, kgo.TransactionalID(o.TransactionalID), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumerGroup(o.Group), kgo.ConsumeTopics(cp.in.Topics()...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(cp.moves.assigned), kgo.OnPartitionsRevoked(cp.moves.revoked), kgo.OnPartitionsLost(cp.moves.revoked),
		kgo.Dialer(cp.link.dial), kgo.WithLogger(sessionLog{&cp.triedCommit}))
	if pc.TransactionTimeout > 0 {
		kopts = append(kopts, kgo.TransactionTimeout(pc.TransactionTimeout))
	}
	if s := o.Consumer.SessionTimeout; s > 0 {
		kopts = append(kopts, kgo.SessionTimeout(s), kgo.HeartbeatInterval(s/3))
	}
	return kopts, nil
}

// open loads the producer id within the retry budget and records the
// subscribe op (kgo joins in the background: it cannot fail here).
func (cp *Copier) open(ctx context.Context) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	budget := cp.opts.RetryBudget
	err := client.Bounded("InitProducerID", budget, func() error {
		ctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		_, _, err := cp.sess.Client().ProducerID(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", client.ErrRetriesExhausted, err)
		}
		return err
	})
	if err != nil {
		return err
	}
	cp.ops.Complete(cp.ops.Invoke(histories.FSubscribe, nil, cp.in.Keys()), histories.OK, nil, nil)
	return nil
}

// Close leaves the group and closes the session (an idle copier has no
// open transaction); a leave kgo cannot finish within closeGrace is cut
// off. A no-op once the copier has ended.
func (cp *Copier) Close() {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.ended.Swap(true) {
		return
	}
	if err := client.Bounded("Close", closeGrace, func() error { cp.sess.Close(); return nil }); err != nil {
		cp.link.sever()
	}
}

// copyRun is one step in progress.
type copyRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	begun           bool
	commitRequested bool
}

// Step runs one transaction of up to max input records, waiting at most
// wait for the first, and records it as one txn op, as client.Copier's
// Step does: an empty poll is an ok txn with no transaction; a poll under
// which partitions were revoked fails the step; otherwise the copies are
// sent and the session ends the transaction with the consumed offsets.
// After a step that did not commit, the session is back at the group's
// committed offsets.
func (cp *Copier) Step(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.refuse(); err != nil {
		return "", err
	}
	run := &copyRun{inv: cp.ops.Invoke(histories.FTxn, []histories.Mop{{F: histories.MPoll}}, nil)}
	cp.ops.Rebalance = nil
	got, err := cp.fetch(max, wait)
	run.mops = []histories.Mop{{F: histories.MPoll, Records: got.Records}}
	if err == nil && cp.ops.Rebalance != nil && len(cp.ops.Rebalance.Revoked) > 0 && got.N > 0 {
		// Offsets of revoked keys are no longer ours to commit.
		err = errors.New("partitions revoked during the transaction")
	}
	if err != nil || got.N == 0 {
		return cp.end(ctx, run, err)
	}
	abort := cp.rng.Float64() < cp.opts.AbortProbability
	sends, err := client.CopySends(got.Records, cp.opts.Pairs, abort, run.inv.Index)
	if err != nil {
		typ, _ := cp.end(ctx, run, err)
		return typ, cp.stop(err)
	}
	if err = cp.sess.Begin(); err != nil {
		return cp.end(ctx, run, err)
	}
	run.begun = true
	err = cp.produce(sends)
	run.mops = append(run.mops, sends...)
	if err == nil {
		run.mops = append(run.mops, histories.Mop{F: histories.MCommit, Offsets: got.Next})
	}
	if cp.crashReq.Load() {
		return cp.crash(run)
	}
	if err == nil && abort {
		err = client.ErrAbortedOnPurpose
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return cp.end(ctx, run, err)
	}
	run.commitRequested = true
	return cp.commit(ctx, run)
}

// fetch polls up to max records within wait, with what the group moved
// meanwhile.
func (cp *Copier) fetch(max int, wait time.Duration) (*client.Fetched, error) {
	got := client.NewFetched()
	var fs kgo.Fetches
	err := client.Bounded("PollRecords", wait+quickBound, func() error {
		pctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		fs = cp.sess.PollRecords(pctx, max)
		return nil
	})
	if err != nil {
		return got, err
	}
	if r := cp.moves.Take(); r != nil {
		m := cp.ops.Rebalanced()
		m.Assigned, m.Revoked = append(m.Assigned, r.Assigned...), append(m.Revoked, r.Revoked...)
	}
	fs.EachError(func(t string, p int32, e error) {
		if !errors.Is(e, context.DeadlineExceeded) && !errors.Is(e, context.Canceled) && err == nil {
			err = fmt.Errorf("fetch %s[%d]: %w", t, p, e)
		}
	})
	for _, r := range fs.Records() {
		k, ok := cp.in.Key(kafka.TopicPartition{Topic: &r.Topic, Partition: r.Partition})
		if !ok {
			return got, fmt.Errorf("franz copier: record of %s[%d], which no input key maps to", r.Topic, r.Partition)
		}
		v, perr := strconv.ParseInt(string(r.Value), 10, 64)
		if perr != nil {
			return got, fmt.Errorf("franz copier: key %d offset %d: record value %q is not a workload value", k, r.Offset, r.Value)
		}
		got.Add(k, histories.Record{Offset: r.Offset, Value: v})
	}
	return got, err
}

// produce sends each copy and flushes them (within the retry budget),
// setting the offset of each that landed; its error is the first send's.
func (cp *Copier) produce(mops []histories.Mop) error {
	errs := make([]error, len(mops))
	for i := range mops {
		tp, _ := cp.opts.Keys.TP(mops[i].Key)
		r := &kgo.Record{Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.AppendInt(nil, mops[i].Value, 10)}
		cp.sess.Produce(context.Background(), r, func(r *kgo.Record, err error) {
			errs[i] = err
			if err == nil {
				mops[i].Offset = r.Offset
			}
		})
	}
	err := client.Bounded("Flush", cp.opts.RetryBudget, func() error {
		fctx, cancel := context.WithTimeout(context.Background(), cp.opts.RetryBudget)
		defer cancel()
		return cp.sess.Client().Flush(fctx)
	})
	if err != nil {
		return err
	}
	return cmp.Or(errs...)
}

// commit ends the transaction asking to commit: ok when the session says
// it committed; when it says it did not, fail if it never sent the commit
// (it aborted for a rebalance or refused offsets), info if it did.
func (cp *Copier) commit(ctx context.Context, run *copyRun) (histories.Type, error) {
	var committed bool
	err := client.Bounded("End(commit)", 3*cp.opts.CallTimeout, func() error {
		var err error
		committed, err = cp.sess.End(context.Background(), kgo.TryCommit)
		return err
	})
	var hang *client.HangError
	switch {
	case errors.As(err, &hang):
		cp.complete(run, histories.Info, err)
		return histories.Info, cp.stop(err)
	case err != nil:
		cp.complete(run, histories.Info, err)
		return histories.Info, nil // the session aborted and rewound
	case committed:
		cp.complete(run, histories.OK, nil)
		return histories.OK, nil
	case cp.triedCommit.Load():
		cp.complete(run, histories.Info, errUnconfirmedCommit)
		return histories.Info, nil
	}
	cp.complete(run, histories.Fail, errSessionAborted)
	return histories.Fail, nil
}

var (
	// errSessionAborted is a transaction the session aborted without
	// trying to commit it.
	errSessionAborted = errors.New("franz copier: the session aborted the transaction without sending its commit (a rebalance, or offsets the coordinator refused)")
	// errUnconfirmedCommit is one whose commit it sent, then aborted.
	errUnconfirmedCommit = errors.New("franz copier: the session sent the commit, had it unconfirmed and ended the transaction as an abort: the commit may have been applied")
)

// end records a step that did not reach the commit, as typ of
// client.TxnOutcome (fail: no commit was asked for), and ends what may be
// open with an abort, which puts the session back at the group's
// committed offsets. A hang, an abort that fails, or a run that ends
// (ctx: the transaction is left to the successor's fence) stops it.
func (cp *Copier) end(ctx context.Context, run *copyRun, err error) (histories.Type, error) {
	typ := client.TxnOutcome(false, err)
	cp.complete(run, typ, err)
	var hang *client.HangError
	switch {
	case errors.As(err, &hang):
		return typ, cp.stop(err)
	case run.begun && ctx.Err() != nil:
		return typ, cp.stop(fmt.Errorf("left open to the successor's fence: %w", ctx.Err()))
	case typ == histories.OK && !run.begun:
		return typ, nil // an empty poll: nothing to end
	}
	aerr := client.Bounded("End(abort)", 3*cp.opts.CallTimeout, func() error {
		_, err := cp.sess.End(context.Background(), kgo.TryAbort)
		return err
	})
	if aerr != nil {
		return typ, cp.stop(fmt.Errorf("abort: %w", aerr))
	}
	return typ, nil
}

func (cp *Copier) complete(run *copyRun, typ histories.Type, err error) {
	cp.ops.RecordPoll(cp.ops.PollCompletion(run.inv, typ, run.mops, err))
}

// crash completes run as info and ends the copier: the transaction stays
// open until a successor fences it.
func (cp *Copier) crash(run *copyRun) (histories.Type, error) {
	cp.complete(run, histories.Info, client.ErrCrashed)
	return histories.Info, cp.crashNow()
}

// sessionLog reads kgo's log for the one line that says whether a
// transaction session's end sends EndTxn(commit); it logs nothing.
type sessionLog struct{ tried *atomic.Bool }

func (sessionLog) Level() kgo.LogLevel { return kgo.LogLevelInfo }

func (l sessionLog) Log(_ kgo.LogLevel, msg string, keyvals ...any) {
	if msg != "transaction session ending" {
		return
	}
	for i := 0; i+1 < len(keyvals); i += 2 {
		if keyvals[i] == "will_try_commit" {
			tried, _ := keyvals[i+1].(bool)
			l.tried.Store(tried)
		}
	}
}
