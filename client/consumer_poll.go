package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// fetched is what one poll op read.
type fetched struct {
	records map[histories.Key][]histories.Record
	next    map[histories.Key]int64 // offset after the last record, per key
	eof     map[histories.Key]int64 // keys that reached their end, at offset
	n       int
}

// Poll runs one poll op: it fetches up to max records, waiting at most
// wait, then processes them, committing as the strategy says. It returns
// ErrCrashed once the worker has crashed (possibly during this poll).
func (c *Consumer) Poll(ctx context.Context, max int, wait time.Duration) error {
	_, err := c.pollOp(ctx, max, wait)
	return err
}

func (c *Consumer) poll(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	c.takeWaking()
	got, err := c.pollSteps(ctx, max, wait)
	// After the poll's own ops, so that no op of this process is open;
	// a crash recorded them already, before its crash op.
	if !c.ended.Load() {
		c.recordAutoCommits()
	}
	c.stallGate(ctx, StallBetweenPolls)
	return got, err
}

func (c *Consumer) pollSteps(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	inv := c.invoke(histories.FPoll, []histories.Mop{{F: histories.MPoll}}, nil)
	c.rebalance = nil
	got, err := c.fetch(ctx, max, wait)
	mops := []histories.Mop{{F: histories.MPoll, Records: got.records}}
	if err != nil {
		// A hung Poll is info too (completion): fetched, not processed.
		c.completePoll(inv, completion(err), mops, err)
		return got, c.hangOr(err)
	}
	if c.crashPoint(CrashAnywhere) {
		return got, c.crashIn(inv, mops)
	}
	crash := c.autoCommitCrash(got)
	if c.hang != nil { // a Poll of autoCommitCrash hung
		c.completePoll(inv, histories.Info, []histories.Mop{{F: histories.MPoll, Records: got.records}}, c.hang)
		return got, c.hangOp()
	}
	if crash {
		return got, c.crashIn(inv, []histories.Mop{{F: histories.MPoll, Records: got.records}})
	}
	if c.opts.Config.Commit == CommitBeforeProcessing && len(got.next) > 0 {
		return got, c.commitThenProcess(inv, got)
	}
	c.completePoll(inv, histories.OK, mops, nil)
	if c.opts.Config.Commit == CommitAfterProcessing && len(got.next) > 0 {
		if c.crashPoint(CrashBeforeCommit) {
			return got, c.crashIn(nil, nil)
		}
		c.stallGate(ctx, StallBeforeCommit)
		return got, c.commit(got.next)
	}
	return got, nil
}

// hangOr is, after a call hung, the worker's error (recording the
// client-hang op: see hangOp); otherwise err.
func (c *Consumer) hangOr(err error) error {
	if herr := c.hangOp(); herr != nil {
		return herr
	}
	return err
}

// autoCommitCrash reports whether a crash requested at CrashAfterCommit of
// an auto-committing consumer fires in this poll: once librdkafka reports a
// background commit past the first record the poll fetched (waiting a few
// commit intervals for one), the poll's records are committed and not
// processed. Records fetched while waiting join the poll.
func (c *Consumer) autoCommitCrash(got *fetched) bool {
	if c.opts.Config.Commit != CommitAuto || CrashPoint(c.crashAt.Load()) != CrashAfterCommit || got.n == 0 {
		return false
	}
	deadline := time.Now().Add(max(3*c.opts.Config.AutoCommitEach, time.Second))
	for time.Now().Before(deadline) {
		if c.autoCommitted(got) {
			return true
		}
		ev, err := c.pollEvent(20)
		if err != nil {
			return false // hung: the caller sees c.hang
		}
		if err := c.handle(ev, got); err != nil {
			return false
		}
	}
	return c.autoCommitted(got)
}

// autoCommitted reports whether a reported background commit covers a
// record of got.
func (c *Consumer) autoCommitted(got *fetched) bool {
	for _, ac := range c.autoCommits {
		for k, off := range ac.offsets {
			if recs := got.records[k]; ac.err == nil && len(recs) > 0 && off > recs[0].Offset {
				return true
			}
		}
	}
	return false
}

// commitThenProcess is commit-before-processing: the commit is a mop of the
// poll op, before the poll mop (a process has one op open at a time, and
// this commit happens inside the poll, before processing). Only records
// whose commit is proven are processed: processing a record whose commit
// may have failed would let a later member process it again, which this
// strategy promises not to do. Keys whose commit is not proven are rewound
// to their first fetched record, so that the next poll fetches and commits
// them again rather than skipping them.
func (c *Consumer) commitThenProcess(inv *histories.Op, got *fetched) error {
	res := c.commitOffsets(got.next)
	switch {
	case len(res.committed) == 0 && res.outcome() == histories.Fail:
		// Certainly not committed, nothing was sent: process anyway
		// (a local refusal, e.g. no assignment).
		c.completePoll(inv, histories.OK, []histories.Mop{{F: histories.MPoll, Records: got.records}}, nil)
		return nil
	case len(res.committed) == 0:
		// Maybe committed: the poll's outcome is unknown too. So after
		// a hung CommitOffsets or read-back, then the client-hang op.
		commit := histories.Mop{F: histories.MCommit, Offsets: got.next}
		c.completePoll(inv, histories.Info, []histories.Mop{commit, {F: histories.MPoll, Records: got.records}}, res.err)
		return c.hangOp()
	}
	processed := make(map[histories.Key][]histories.Record, len(res.committed))
	for k := range res.committed {
		processed[k] = got.records[k]
	}
	commit := histories.Mop{F: histories.MCommit, Offsets: res.committed}
	if c.crashPoint(CrashAfterCommit) {
		// The commit is proven and nothing was processed: the poll is
		// ok with its commit and no records processed (what it fetched
		// is in Extra "unprocessed", for people). An info poll would
		// hide a commit that certainly happened.
		op := c.pollCompletion(inv, histories.OK, []histories.Mop{commit, {F: histories.MPoll}}, res.err)
		SetExtra(op, ExtraUnprocessed, RecordsJSON(got.records))
		c.recordPoll(op)
		return c.crashIn(nil, nil)
	}
	mops := []histories.Mop{commit, {F: histories.MPoll, Records: processed}}
	op := c.pollCompletion(inv, histories.OK, mops, res.err)
	if len(res.unproven) > 0 {
		SetExtra(op, ExtraUncommitted, OffsetsJSON(res.unproven))
		if err := c.rewind(got, res.unproven); err != nil {
			// The records stay unread by this process and its
			// position is past them: say so rather than hide it.
			op.Type = histories.Info
			op.Mops[1].Records = got.records
			op.Error = fmt.Sprintf("%v; rewind: %v", res.err, err)
		}
	}
	c.recordPoll(op)
	return c.hangOp() // a Seek of the rewind may have hung
}

// rewind seeks each key to its first record in got.
func (c *Consumer) rewind(got *fetched, keys map[histories.Key]int64) error {
	for k := range keys {
		if recs := got.records[k]; len(recs) > 0 {
			if err := c.seek(k, recs[0].Offset); err != nil {
				return err
			}
		}
	}
	return nil
}

// seek moves the position of key k to offset off.
func (c *Consumer) seek(k histories.Key, off int64) error {
	tp, _ := c.opts.Keys.TP(k)
	tp.Offset = kafka.Offset(off)
	err := c.call("Seek", c.timeout(quickTimeout), func(kc consumerHandle) error { return kc.Seek(tp, 0) })
	if err != nil {
		return fmt.Errorf("key %d to offset %d: %w", k, off, err)
	}
	return nil
}

func (c *Consumer) completePoll(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) {
	c.recordPoll(c.pollCompletion(inv, t, mops, err))
}

// pollCompletion is the completion op of poll inv, not yet recorded.
func (c *Consumer) pollCompletion(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) *histories.Op {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops, Group: inv.Group, Rebalance: c.rebalance}
	if err != nil {
		op.Error = err.Error()
	}
	if len(c.dropped) > 0 {
		SetExtra(op, ExtraRevoked, RecordsJSON(c.dropped))
	}
	return op
}

// SetExtra sets one Extra field of op, keeping the others.
func SetExtra(op *histories.Op, field string, v json.RawMessage) {
	if op.Extra == nil {
		op.Extra = map[string]json.RawMessage{}
	}
	op.Extra[field] = v
}

func (c *Consumer) recordPoll(op *histories.Op) {
	c.notePoll(op)
	c.opts.Recorder.Record(op)
	c.rebalance, c.dropped = nil, nil
}

func newFetched() *fetched {
	return &fetched{records: map[histories.Key][]histories.Record{}, next: map[histories.Key]int64{}, eof: map[histories.Key]int64{}}
}

// fetch polls librdkafka until max records, wait elapsed, or every assigned
// key reported its end.
func (c *Consumer) fetch(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	got := newFetched()
	c.dropped = nil
	c.dropRevoked(got) // revoked before this op: only stored offsets to forget
	deadline := time.Now().Add(wait)
	for got.n < max {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		ev, err := c.pollEvent(int(min(left, 50*time.Millisecond) / time.Millisecond))
		if err != nil {
			return got, err // hung: the handle is abandoned
		}
		if err := c.handle(ev, got); err != nil {
			return got, err
		}
		c.dropRevoked(got)
		if CrashPoint(c.crashAt.Load()) == CrashAnywhere {
			break
		}
	}
	return got, nil
}

// handle folds one librdkafka event into got.
func (c *Consumer) handle(ev kafka.Event, got *fetched) error {
	switch e := ev.(type) {
	case *kafka.Message:
		if e.TopicPartition.Error != nil {
			return nil // per-partition fetch errors are retried by the client
		}
		k, ok := c.opts.Keys.Key(e.TopicPartition)
		if !ok {
			return fmt.Errorf("consumer: record from %v, which no key maps to", e.TopicPartition)
		}
		v, err := decodeValue(e.Value)
		if err != nil {
			return fmt.Errorf("consumer: key %d offset %d: %w", k, e.TopicPartition.Offset, err)
		}
		off := int64(e.TopicPartition.Offset)
		if err := c.store(k, e); err != nil {
			return err
		}
		got.records[k] = append(got.records[k], histories.Record{Offset: off, Value: v})
		got.next[k] = off + 1
		delete(got.eof, k)
		got.n++
	case kafka.PartitionEOF:
		if k, ok := c.opts.Keys.Key(kafka.TopicPartition(e)); ok {
			got.eof[k] = int64(e.Offset)
		}
	case kafka.OffsetsCommitted:
		c.noteAutoCommit(e)
	case kafka.Error:
		c.noteMaxPoll(e)
		if e.IsFatal() {
			return e
		}
	}
	return nil
}

// dropRevoked gives up what got holds of the keys revoked since the last
// look (a rebalance callback inside the Poll just made). The process no
// longer owns them, so a consumer that commits itself (before or after
// processing) neither processes nor commits their records: committing
// would overwrite the group's offset after the key's new owner, perhaps
// this process again, has read it, and processing would hand records to
// two members, which commit-before-processing promises never to do. The
// new owner reads them from the committed offset instead. They go to
// dropped, for the op's "revoked-unprocessed" Extra.
//
// An auto-committing consumer keeps them: each was handed to the
// application as Poll returned it (store), and librdkafka commits the
// stored offsets of revoked partitions as it removes them, before the new
// assignment reads its committed offsets, so they are the application's to
// process. Either way the stored offsets of revoked keys are forgotten:
// librdkafka resets them with the assignment, and no close commits them.
func (c *Consumer) dropRevoked(got *fetched) {
	for _, k := range c.takeRevoked() {
		delete(c.stored, k)
		recs := got.records[k]
		if c.opts.Config.Commit == CommitAuto || len(recs) == 0 {
			continue
		}
		if c.dropped == nil {
			c.dropped = map[histories.Key][]histories.Record{}
		}
		c.dropped[k] = append(c.dropped[k], recs...)
		got.n -= len(recs)
		delete(got.records, k)
		delete(got.next, k)
		delete(got.eof, k)
	}
}

// ExtraRevoked is the Extra field of a poll op whose keys were revoked
// while it ran: the records it had fetched of them before the revoke, as
// [offset, value] pairs, dropped unprocessed (see dropRevoked). Checkers
// ignore it: nothing processed them.
const ExtraRevoked = "revoked-unprocessed"

// store marks m as handed to the worker, for an auto-committing consumer:
// its offset becomes one librdkafka may commit.
func (c *Consumer) store(k histories.Key, m *kafka.Message) error {
	if c.opts.Config.Commit != CommitAuto {
		return nil
	}
	if _, err := c.kc.StoreMessage(m); err != nil {
		return fmt.Errorf("consumer: storing the offset of key %d offset %d: %w", k, m.TopicPartition.Offset, err)
	}
	if c.stored == nil {
		c.stored = map[histories.Key]int64{}
	}
	c.stored[k] = int64(m.TopicPartition.Offset) + 1
	return nil
}

// noteAutoCommit keeps a background commit librdkafka reported, to be
// recorded once no op of this process is open. A report with an error says
// nothing per partition that can be trusted (librdkafka sets the error when
// any partition failed), so the whole commit takes CommitOutcome's type.
func (c *Consumer) noteAutoCommit(e kafka.OffsetsCommitted) {
	err := e.Error
	if err == nil {
		err = firstPartitionError(e.Offsets)
	}
	offs := map[histories.Key]int64{}
	for _, tp := range e.Offsets {
		if k, ok := c.opts.Keys.Key(tp); ok && tp.Offset >= 0 {
			offs[k] = int64(tp.Offset)
		}
	}
	if len(offs) > 0 {
		c.autoCommits = append(c.autoCommits, autoCommit{offsets: offs, err: err})
	}
}

// autoCommit is one background commit librdkafka reported.
type autoCommit struct {
	offsets map[histories.Key]int64
	err     error
}

// recordAutoCommits records the background commits librdkafka reported
// since the last call as commit ops. They are recorded when reported,
// after they happened; no op of this process was open meanwhile.
func (c *Consumer) recordAutoCommits() {
	for _, ac := range c.autoCommits {
		mops := []histories.Mop{{F: histories.MCommit, Offsets: ac.offsets}}
		inv := c.invoke(histories.FCommit, mops, nil)
		c.complete(inv, CommitOutcome(ac.err), mops, ac.err)
	}
	c.autoCommits = nil
}

// commit runs one commit op for the given next offsets. The completion
// lists what is known per key: see commitResult. A hung CommitOffsets (or
// read-back) completes it as info, the client-hang op follows, and the
// error is the worker's (see hangOp).
func (c *Consumer) commit(next map[histories.Key]int64) error {
	mops := []histories.Mop{{F: histories.MCommit, Offsets: next}}
	inv := c.invoke(histories.FCommit, mops, nil)
	res := c.commitOffsets(next)
	op := &histories.Op{Process: inv.Process, Type: histories.OK, F: inv.F, Group: inv.Group,
		Mops: []histories.Mop{{F: histories.MCommit, Offsets: res.committed}}}
	switch {
	case len(res.committed) == 0:
		op.Type, op.Mops = res.outcome(), mops
	case len(res.unproven) > 0:
		op.Extra = map[string]json.RawMessage{ExtraUncommitted: OffsetsJSON(res.unproven)}
	}
	if res.err != nil {
		op.Error = res.err.Error()
	}
	c.opts.Recorder.Record(op)
	c.noteWakingCommit(op)
	return c.hangOp()
}

// ExtraUncommitted is the Extra field of an ok commit (or commit-before-
// processing poll) that committed only some of the keys it was asked to:
// the offsets of the others, whose commit is not proven (it may or may not
// have been stored). The ok op's commit mop lists only proven keys, so
// checkers, which count the commit mops of ok ops, count what is proven
// and nothing else; an info op would have hidden the proven part.
const ExtraUncommitted = "uncommitted"

// commitResult is what one commit call proved, per key.
type commitResult struct {
	committed map[histories.Key]int64 // stored: the call or a read-back says so
	unproven  map[histories.Key]int64 // the rest: maybe stored, maybe not
	err       error                   // the commit's error, nil when all stored
}

// outcome is the type of the commit as a whole when nothing is proven.
func (r commitResult) outcome() histories.Type { return CommitOutcome(r.err) }

// commitReadBack bounds the read-back of a failed commit.
const commitReadBack = 5 * time.Second

// commitOffsets commits next offsets synchronously. librdkafka reports a
// commit in which any partition failed as one error, without per-partition
// results, although the coordinator stored the others; so after an error
// that may have followed a request, the group's committed offsets are read
// back, and every key whose committed offset is the one asked for counts as
// committed.
func (c *Consumer) commitOffsets(next map[histories.Key]int64) commitResult {
	tps := make([]kafka.TopicPartition, 0, len(next))
	for k, off := range next {
		tp, _ := c.opts.Keys.TP(k)
		tp.Offset = kafka.Offset(off)
		tps = append(tps, tp)
	}
	res := commitResult{committed: map[histories.Key]int64{}, unproven: map[histories.Key]int64{}}
	out, err := callValue(c, "CommitOffsets", c.commitTimeout(), func(kc consumerHandle) ([]kafka.TopicPartition, error) {
		return kc.CommitOffsets(tps)
	})
	if err == nil {
		err = firstPartitionError(out)
	}
	res.err = err
	if err == nil {
		res.committed = next
		return res
	}
	stored := map[histories.Key]int64{}
	if CommitOutcome(err) == histories.Info && c.hang == nil {
		stored = c.committedOffsets(tps)
		if c.hang != nil {
			res.err = fmt.Errorf("%w (read-back: %w)", err, c.hang)
		}
	}
	for k, off := range next {
		if at, ok := stored[k]; ok && at == off {
			res.committed[k] = off
		} else {
			res.unproven[k] = off
		}
	}
	return res
}

// committedOffsets reads the group's committed offsets of tps back; on an
// error it knows nothing.
func (c *Consumer) committedOffsets(tps []kafka.TopicPartition) map[histories.Key]int64 {
	out := map[histories.Key]int64{}
	timeout := c.timeout(commitReadBack)
	got, err := callValue(c, "Committed", timeout, func(kc consumerHandle) ([]kafka.TopicPartition, error) {
		return kc.Committed(tps, int(timeout/time.Millisecond))
	})
	if err != nil {
		return out
	}
	for _, tp := range got {
		if k, ok := c.opts.Keys.Key(tp); ok && tp.Error == nil && tp.Offset >= 0 {
			out[k] = int64(tp.Offset)
		}
	}
	return out
}

// ExtraUnprocessed is the Extra field of a poll that committed, then
// crashed before processing: the records it had fetched, per key, as
// [offset, value] pairs. Checkers ignore it: nothing processed them.
const ExtraUnprocessed = "unprocessed"

// RecordsJSON marshals records as {"key": [[offset, value], ...]}; integers
// cannot fail to marshal.
func RecordsJSON(records map[histories.Key][]histories.Record) json.RawMessage {
	out := make(map[histories.Key][][2]int64, len(records))
	for k, rs := range records {
		for _, r := range rs {
			out[k] = append(out[k], [2]int64{r.Offset, r.Value})
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// OffsetsJSON marshals per-key offsets; integers cannot fail to marshal.
func OffsetsJSON(m map[histories.Key]int64) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}

func firstPartitionError(tps []kafka.TopicPartition) error {
	for _, tp := range tps {
		if tp.Error != nil {
			return tp.Error
		}
	}
	return nil
}

// Commit commits offsets explicitly (the next offset to read, per key), as
// one commit op.
func (c *Consumer) Commit(next map[histories.Key]int64) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	return c.commit(next)
}
