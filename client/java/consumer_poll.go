package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Poll runs one poll op: it fetches up to max records, waiting at most
// wait, then processes them, committing as the strategy says. It returns
// an error matching client.ErrCrashed once the consumer has ended
// (possibly during this poll).
func (c *Consumer) Poll(_ context.Context, max int, wait time.Duration) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	err := c.pollSteps(max, wait)
	// After the poll's own ops, so that no op of this process is open.
	if !c.ended.Load() {
		c.recordAutoCommits()
	}
	return err
}

func (c *Consumer) pollSteps(max int, wait time.Duration) error {
	inv := c.ops.Invoke(histories.FPoll, []histories.Mop{{F: histories.MPoll}}, nil)
	c.ops.Rebalance, c.ops.Dropped = nil, nil
	got := client.NewFetched()
	mops := func() []histories.Mop { return []histories.Mop{{F: histories.MPoll, Records: got.Records}} }
	err := c.fetch(got, max, wait)
	crash := false
	if err == nil {
		crash, err = c.autoCommitCrash(got)
	}
	if err != nil {
		// fetched, not processed
		c.completePoll(inv, histories.Info, mops(), err)
		if ends(err) {
			return c.end(err)
		}
		return err
	}
	if crash || c.crashPoint(client.CrashAnywhere) {
		return c.crashIn(inv, mops())
	}
	if c.opts.Config.Commit == client.CommitBeforeProcessing && len(got.Next) > 0 {
		return c.commitThenProcess(inv, got)
	}
	c.completePoll(inv, histories.OK, mops(), nil)
	if c.opts.Config.Commit == client.CommitAfterProcessing && len(got.Next) > 0 {
		if c.crashPoint(client.CrashBeforeCommit) {
			return c.crashIn(nil, nil)
		}
		return c.commit(got.Next)
	}
	return nil
}

// ends reports whether err ends the process: the JVM exited unasked, or
// hung.
func ends(err error) bool {
	var hang *client.HangError
	return errors.Is(err, errJVMGone) || errors.As(err, &hang)
}

// fetch asks the JVM for up to max records within wait and folds its
// answer into got. Its error is the poll's exception, a record no key
// maps to or no workload value, or one that ends the process.
func (c *Consumer) fetch(got *client.Fetched, max int, wait time.Duration) error {
	a, err := c.request(consumerRequest{Op: "poll", Max: max, WaitMS: wait.Milliseconds()}, wait+quickBound)
	if err != nil {
		return err
	}
	if err := c.fold(a.Items, got); err != nil {
		return err
	}
	if exc := a.exception(); exc != nil {
		return exc
	}
	return nil
}

// fold adds a poll's items to got, in the order they happened.
func (c *Consumer) fold(items [][]json.RawMessage, got *client.Fetched) error {
	return foldPoll(&c.ops, c.opts.Keys, items, got, c.noteStored, func(k histories.Key) { c.dropRevoked(k, got) })
}

// foldPoll adds a poll's items to got, in the order they happened: each
// record of keys, told to added when it is not nil; each assignment and
// revocation noted on ops' rebalance, and each revoked key told to
// revoked.
func foldPoll(ops *client.ConsumerOps, keys *client.KeyMap, items [][]json.RawMessage, got *client.Fetched,
	added func(histories.Key, histories.Record), revoked func(histories.Key)) error {
	for _, it := range items {
		var kind string
		if len(it) < 3 || json.Unmarshal(it[0], &kind) != nil {
			return fmt.Errorf("java consumer: unreadable poll item %s", it)
		}
		k, ok := keyOf(keys, it[1], it[2])
		if !ok {
			return fmt.Errorf("java consumer: %s of partition %s:%s, which no key maps to", kind, it[1], it[2])
		}
		switch kind {
		case "rec":
			_, r, err := recordItem(keys, it)
			if err != nil {
				return err
			}
			got.Add(k, r)
			if added != nil {
				added(k, r)
			}
		case "asg":
			r := ops.Rebalanced()
			r.Assigned = append(r.Assigned, k)
		case "rev":
			r := ops.Rebalanced()
			r.Revoked = append(r.Revoked, k)
			revoked(k)
		}
	}
	return nil
}

// noteStored keeps, for an auto-committing consumer, the offset after
// record r of key k as the position the client's next automatic commit
// commits.
func (c *Consumer) noteStored(k histories.Key, r histories.Record) {
	if c.opts.Config.Commit != client.CommitAuto {
		return
	}
	if c.stored == nil {
		c.stored = map[histories.Key]int64{}
	}
	c.stored[k] = r.Offset + 1
}

// recordItem reads one ["rec", topic, partition, offset, value] of the
// JVM: its key of keys, and the record.
func recordItem(keys *client.KeyMap, it []json.RawMessage) (histories.Key, histories.Record, error) {
	var off int64
	var text string
	if len(it) != 5 || json.Unmarshal(it[3], &off) != nil || json.Unmarshal(it[4], &text) != nil {
		return 0, histories.Record{}, fmt.Errorf("java: unreadable record %s", it)
	}
	k, ok := keyOf(keys, it[1], it[2])
	if !ok {
		return 0, histories.Record{}, fmt.Errorf("java: record of partition %s:%s, which no key maps to", it[1], it[2])
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, histories.Record{}, fmt.Errorf("java: key %d offset %d: record value %q is not a workload value", k, off, text)
	}
	return k, histories.Record{Offset: off, Value: v}, nil
}

// dropRevoked gives up what got holds of key k, just revoked, as
// client.Consumer does: a consumer that commits itself neither processes
// nor commits records of a key it no longer owns (their new owner reads
// them from the committed offset), and lists them in the op's
// "revoked-unprocessed" Extra. An auto-committing consumer keeps them:
// the Java client commits the position of a revoked partition before it
// lets it go, so they are the worker's to process.
func (c *Consumer) dropRevoked(k histories.Key, got *client.Fetched) {
	delete(c.stored, k)
	if c.opts.Config.Commit != client.CommitAuto {
		c.ops.DropRevoked(k, got)
	}
}

// autoCommitCrash reports whether a crash requested at CrashAfterCommit of
// an auto-committing consumer fires in this poll: once the client proved
// an automatic commit past the first record the poll fetched (polling a
// few commit intervals for one), the poll's records are committed and not
// processed. Records fetched meanwhile join the poll.
func (c *Consumer) autoCommitCrash(got *client.Fetched) (bool, error) {
	if c.opts.Config.Commit != client.CommitAuto || client.CrashPoint(c.crashAt.Load()) != client.CrashAfterCommit || got.N == 0 {
		return false, nil
	}
	deadline := time.Now().Add(max(3*c.opts.Config.AutoCommitEach, time.Second))
	for time.Now().Before(deadline) {
		if c.autoCommits.Past(got) {
			return true, nil
		}
		if err := c.fetch(got, math.MaxInt32, 20*time.Millisecond); err != nil {
			return false, err
		}
	}
	return c.autoCommits.Past(got), nil
}

func (c *Consumer) completePoll(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) {
	c.ops.RecordPoll(c.ops.PollCompletion(inv, t, mops, err))
}

// commitThenProcess is commit-before-processing, as client.Consumer plays
// it: the commit is a mop of the poll op, before the poll mop, and only
// the records of keys whose commit is proven are processed; the others
// are sought back to their first fetched record, for the next poll to
// fetch and commit again.
func (c *Consumer) commitThenProcess(inv *histories.Op, got *client.Fetched) error {
	res, err := c.commitOffsets(got.Next)
	if err != nil {
		commit := histories.Mop{F: histories.MCommit, Offsets: got.Next}
		c.completePoll(inv, histories.Info, []histories.Mop{commit, {F: histories.MPoll, Records: got.Records}}, err)
		return c.end(err)
	}
	switch {
	case len(res.committed) == 0 && res.outcome() == histories.Fail:
		// certainly not committed, nothing was sent: process anyway
		c.completePoll(inv, histories.OK, []histories.Mop{{F: histories.MPoll, Records: got.Records}}, nil)
		return nil
	case len(res.committed) == 0:
		// maybe committed: the poll's outcome is unknown too
		commit := histories.Mop{F: histories.MCommit, Offsets: got.Next}
		c.completePoll(inv, histories.Info, []histories.Mop{commit, {F: histories.MPoll, Records: got.Records}}, res.error())
		return nil
	}
	commit := histories.Mop{F: histories.MCommit, Offsets: res.committed}
	if c.crashPoint(client.CrashAfterCommit) {
		// the commit is proven and nothing was processed
		op := c.ops.PollCompletion(inv, histories.OK, []histories.Mop{commit, {F: histories.MPoll}}, res.error())
		client.SetExtra(op, client.ExtraUnprocessed, client.RecordsJSON(got.Records))
		c.ops.RecordPoll(op)
		return c.crashIn(nil, nil)
	}
	processed := make(map[histories.Key][]histories.Record, len(res.committed))
	for k := range res.committed {
		processed[k] = got.Records[k]
	}
	op := c.ops.PollCompletion(inv, histories.OK, []histories.Mop{commit, {F: histories.MPoll, Records: processed}}, res.error())
	var rerr error
	if len(res.unproven) > 0 {
		client.SetExtra(op, client.ExtraUncommitted, client.OffsetsJSON(res.unproven))
		if rerr = c.rewind(got, res.unproven); rerr != nil {
			// the records stay unread by this process and its position
			// is past them: say so rather than hide it
			op.Type = histories.Info
			op.Mops[1].Records = got.Records
			op.Error = fmt.Sprintf("%v; rewind: %v", res.err, rerr)
		}
	}
	c.ops.RecordPoll(op)
	if ends(rerr) {
		return c.end(rerr)
	}
	return nil
}

// rewind seeks each key of keys to its first record in got.
func (c *Consumer) rewind(got *client.Fetched, keys map[histories.Key]int64) error {
	to := map[histories.Key]int64{}
	for k := range keys {
		if recs := got.Records[k]; len(recs) > 0 {
			to[k] = recs[0].Offset
		}
	}
	arg, err := c.offsetsArg(to)
	if err != nil || len(to) == 0 {
		return err
	}
	a, err := c.request(consumerRequest{Op: "seek", Offsets: arg}, quickBound)
	if err != nil {
		return err
	}
	if exc := a.exception(); exc != nil {
		return exc
	}
	return nil
}

// commit runs one commit op for the given next offsets; the completion
// lists what is proven per key, as client.Consumer's does.
func (c *Consumer) commit(next map[histories.Key]int64) error {
	mops := []histories.Mop{{F: histories.MCommit, Offsets: next}}
	inv := c.ops.Invoke(histories.FCommit, mops, nil)
	res, err := c.commitOffsets(next)
	if err != nil {
		c.ops.Complete(inv, histories.Info, mops, err)
		return c.end(err)
	}
	c.opts.Recorder.Record(c.ops.CommitCompletion(inv, mops, res.committed, res.unproven, res.outcome(), res.error()))
	return nil
}

// commitResult is what one commitSync proved, per key.
type commitResult struct {
	committed map[histories.Key]int64 // stored: the call or a read-back says so
	unproven  map[histories.Key]int64 // the rest: maybe stored, maybe not
	err       *Exception              // the commit's exception; nil when all stored
}

// outcome is the type of the commit as a whole when nothing is proven.
func (r commitResult) outcome() histories.Type { return CommitOutcome(r.err) }

// error is the commit's exception as an error: nil when there is none.
func (r commitResult) error() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// commitOffsets commits next with commitSync. An exception that may
// follow a request (CommitOutcome info) says nothing per partition, so
// the group's committed offsets are read back, and every key whose
// committed offset is the one asked for counts as committed. Its error
// ends the process (see request).
func (c *Consumer) commitOffsets(next map[histories.Key]int64) (commitResult, error) {
	res := commitResult{committed: map[histories.Key]int64{}, unproven: map[histories.Key]int64{}}
	arg, err := c.offsetsArg(next)
	if err != nil {
		return res, err
	}
	a, err := c.request(consumerRequest{Op: "commit", Offsets: arg, TimeoutMS: commitBound.Milliseconds()}, commitBound)
	if err != nil {
		return res, err
	}
	if res.err = a.exception(); res.err == nil {
		res.committed = next
		return res, nil
	}
	stored := map[histories.Key]int64{}
	if CommitOutcome(res.err) == histories.Info {
		b, err := c.request(consumerRequest{Op: "committed", Partitions: arg, TimeoutMS: quickBound.Milliseconds()}, quickBound)
		if err != nil {
			return res, err
		}
		for _, raw := range b.Offsets {
			if k, off, ok := c.keyOffset(raw); ok {
				stored[k] = off
			}
		}
	}
	for k, off := range next {
		if at, ok := stored[k]; ok && at == off {
			res.committed[k] = off
		} else {
			res.unproven[k] = off
		}
	}
	return res, nil
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
