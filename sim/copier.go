package sim

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
)

// txnTimeout bounds one copier transaction's calls; one that has not
// answered by then completes its op info.
const txnTimeout = 10 * time.Second

// copier is Kafka's exactly-once recipe on franz-go: a GroupTransactSession
// (read_committed, a transactional producer, the consumed offsets
// committed in the transaction) copying input key k to output key
// Count+k by the copier value scheme, as client's copier does: the copy
// of input offset o with value v is histories.CopyValue(v, o), and in the
// transactions it aborts on purpose histories.PoisonValue(o, attempt), the
// attempt being the txn op's invoke index. Each transaction
// is one txn op: ok when it committed, fail when it certainly aborted,
// info otherwise.
type copier struct {
	e      *env
	r      *rand.Rand
	period time.Duration
	pid    int64
	txnID  string
	group  string
	sess   *kgo.GroupTransactSession
	link   *link
	ending endWatch

	rebalances rebalances
}

func (cp *copier) open() error {
	s := cp.e.s
	l := &link{c: cp.e.c, latency: odd(cp.r, 200*time.Microsecond)}
	backoff := odd(cp.r, 40*time.Millisecond)
	opts := []kgo.Opt{kgo.SeedBrokers(cp.e.c.seeds()...), kgo.Dialer(l.dial), kgo.DisableClientMetrics(),
		kgo.RetryBackoffFn(func(int) time.Duration { return backoff }),
		kgo.TransactionalID(cp.txnID), kgo.TransactionTimeout(txnTimeout),
		kgo.DefaultProduceTopic(s.Keys.OutputTopic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConsumerGroup(cp.group), kgo.ConsumeTopics(s.Keys.Topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(odd(cp.r, pollTimeout/2)),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.RequireStableFetchOffsets(),
		kgo.WithLogger(&cp.ending)}
	sess, err := kgo.NewGroupTransactSession(append(opts, cp.rebalances.opts()...)...)
	if err != nil {
		return err
	}
	cp.sess, cp.link = sess, l
	cp.e.took(cp.pid, histories.FSubscribe, cp.group, cp.e.allKeys()[:len(cp.e.parts)], nil)
	return nil
}

// run copies until the workload ends, then leaves the group.
func (cp *copier) run() error {
	if err := cp.open(); err != nil {
		return err
	}
	for cp.e.sleepUntilNext(cp.r, cp.period) {
		cp.step()
	}
	cp.sess.CloseAllowingRebalance()
	return nil
}

// step is one transaction: poll up to TxnSize records, copy them, commit
// (or abort on purpose) with the consumed offsets.
func (cp *copier) step() {
	inv := cp.e.rec.Record(&histories.Op{Process: cp.pid, Type: histories.Invoke, F: histories.FTxn, Group: cp.group,
		Mops: []histories.Mop{{F: histories.MPoll}}})
	done := &histories.Op{Process: cp.pid, Type: histories.OK, F: histories.FTxn, Group: inv.Group}
	ctx, cancel := context.WithTimeout(context.Background(), odd(cp.r, pollTimeout))
	fs := cp.sess.PollRecords(ctx, max(1, cp.e.s.Workload.TxnSize))
	cancel()
	recs, next := fetched(cp.e, fs)
	done.Rebalance = cp.rebalances.Take()
	done.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
	if len(recs) == 0 {
		cp.e.rec.Record(done)
		cp.sess.AllowRebalance()
		return
	}
	abort := cp.r.Float64() < cp.e.s.Workload.AbortRatio
	sends, err := cp.copy(recs, abort, inv.Index)
	done.Mops = append(done.Mops, sends...)
	done.Mops = append(done.Mops, histories.Mop{F: histories.MCommit, Offsets: next})
	done.Type, done.Error = cp.end(err, abort)
	cp.e.rec.Record(done)
}

// copy sends each record's copy (poisoned by attempt when abort) in the
// open transaction; the send mops carry the offsets the broker gave.
func (cp *copier) copy(recs map[histories.Key][]histories.Record, abort bool, attempt int64) ([]histories.Mop, error) {
	if err := cp.sess.Begin(); err != nil {
		return nil, err
	}
	var rs []*kgo.Record
	var mops []histories.Mop
	for k := range histories.Key(len(cp.e.parts)) {
		for _, r := range recs[k] {
			v, err := histories.CopyValue(r.Value, r.Offset)
			if abort {
				v, err = histories.PoisonValue(r.Offset, attempt)
			}
			if err != nil {
				return nil, err
			}
			out := histories.Key(len(cp.e.parts)) + k
			_, p := cp.e.topicOf(out)
			rs = append(rs, &kgo.Record{Partition: p, Value: []byte(strconv.FormatInt(v, 10))})
			mops = append(mops, histories.Send(out, v))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), txnTimeout)
	defer cancel()
	at := make(map[*kgo.Record]int, len(rs))
	for i, r := range rs {
		at[r] = i
	}
	res := cp.sess.ProduceSync(ctx, rs...)
	for _, r := range res { // in the order the promises fired, not rs's
		if r.Err == nil {
			mops[at[r.Record]].Offset = r.Record.Offset
		}
	}
	return mops, res.FirstErr()
}

// end commits or aborts the transaction: ok when it committed, fail when
// it certainly aborted (End says so without an error, and either the copier
// asked for the abort or kgo decided on one before sending any commit),
// info otherwise: kgo ends a commit answered UNKNOWN_SERVER_ERROR "as an
// abort" that sends nothing, and End then says not committed without an
// error while the commit may have landed.
func (cp *copier) end(sendErr error, abort bool) (histories.Type, string) {
	ctx, cancel := context.WithTimeout(context.Background(), txnTimeout)
	defer cancel()
	try := kgo.TryCommit
	if abort || sendErr != nil {
		try = kgo.TryAbort
	}
	cp.ending.reset()
	committed, err := cp.sess.End(ctx, try)
	cp.sess.AllowRebalance()
	switch {
	case err != nil:
		return histories.Info, err.Error()
	case committed:
		return histories.OK, ""
	case sendErr != nil:
		return histories.Fail, sendErr.Error()
	case abort:
		return histories.Fail, "aborted on purpose"
	case cp.ending.triedCommit():
		return histories.Info, "commit unconfirmed: kgo sent it, then ended the transaction as an abort without an answer it could trust"
	}
	return histories.Fail, "aborted by the session (a rebalance or a failed offset commit)"
}

// endWatch reads kgo's log of a transaction's end for whether it sent the
// commit: End's result does not say (see copier.end). Not having read it
// counts as sent, which leaves the outcome unknown rather than claiming an
// abort.
type endWatch struct {
	mu        sync.Mutex
	seen, try bool
}

// endingMsg and willTryCommit are the line kgo logs before it ends a
// session's transaction, and its key saying whether it sends a commit.
const (
	endingMsg     = "transaction session ending"
	willTryCommit = "will_try_commit"
)

func (w *endWatch) Level() kgo.LogLevel { return kgo.LogLevelInfo }

func (w *endWatch) Log(_ kgo.LogLevel, msg string, kv ...any) {
	if msg != endingMsg {
		return
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if b, ok := kv[i+1].(bool); ok && kv[i] == willTryCommit {
			w.mu.Lock()
			w.seen, w.try = true, b
			w.mu.Unlock()
		}
	}
}

func (w *endWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen, w.try = false, false
}

// triedCommit reports whether the last End sent a commit, or may have.
func (w *endWatch) triedCommit() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.seen || w.try
}

// fetched are a poll's records per key and the next offset per key.
func fetched(e *env, fs kgo.Fetches) (map[histories.Key][]histories.Record, map[histories.Key]int64) {
	recs := map[histories.Key][]histories.Record{}
	next := map[histories.Key]int64{}
	fs.EachRecord(func(r *kgo.Record) {
		k := e.keyAt(r.Topic, r.Partition)
		v, err := strconv.ParseInt(string(r.Value), 10, 64)
		if k < 0 || err != nil {
			return
		}
		recs[k] = append(recs[k], histories.Record{Offset: r.Offset, Value: v})
		next[k] = max(next[k], r.Offset+1)
	})
	for k := range recs {
		slices.SortFunc(recs[k], func(a, b histories.Record) int { return cmp.Compare(a.Offset, b.Offset) })
	}
	return recs, next
}
