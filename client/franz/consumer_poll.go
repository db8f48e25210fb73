package franz

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Poll runs one poll op: it fetches up to max records, waiting at most
// wait, then processes them, committing as the strategy says; only then
// may the group move partitions (kgo.AllowRebalance). It returns an error
// matching client.ErrCrashed once the consumer has ended (possibly during
// this poll).
func (c *Consumer) Poll(_ context.Context, max int, wait time.Duration) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	if c.cl == nil {
		return errors.New("franz consumer: poll before assign or subscribe")
	}
	err := c.pollSteps(max, wait)
	// After the poll's own ops, so that no op of this process is open.
	if !c.ended.Load() {
		c.recordAutoCommits()
		c.cl.AllowRebalance()
	}
	return err
}

func (c *Consumer) pollSteps(max int, wait time.Duration) error {
	inv := c.ops.Invoke(histories.FPoll, []histories.Mop{{F: histories.MPoll}}, nil)
	c.ops.Rebalance, c.ops.Dropped = nil, nil
	got := client.NewFetched()
	mops := func() []histories.Mop { return []histories.Mop{{F: histories.MPoll, Records: got.Records}} }
	note, err := c.fetch(got, max, wait)
	if err != nil {
		// fetched, not processed
		c.completePoll(inv, histories.Info, mops(), err)
		if ends(err) {
			return c.end(err)
		}
		return err
	}
	if c.crashPoint(client.CrashAnywhere) {
		return c.crashIn(inv, mops())
	}
	if c.opts.Config.Commit == client.CommitBeforeProcessing && len(got.Next) > 0 {
		return c.commitThenProcess(inv, got)
	}
	c.ops.RecordPoll(c.ops.PollCompletion(inv, histories.OK, mops(), note))
	if c.opts.Config.Commit == client.CommitAfterProcessing && len(got.Next) > 0 {
		if c.crashPoint(client.CrashBeforeCommit) {
			return c.crashIn(nil, nil)
		}
		return c.commit(got.Next)
	}
	return nil
}

// ends reports whether err ends the process: a call that hung, or a
// client closed under the consumer.
func ends(err error) bool {
	return errors.Is(err, client.ErrClientHang) || errors.Is(err, kgo.ErrClientClosed)
}

// fetch polls kgo for up to max records within wait and folds them into
// got, with what the group moved meanwhile. Its error is a record no key
// maps to or no workload value, a closed client, or a hang; any other
// fetch error kgo reports (it retries them itself) is returned as note,
// for the ok op's error text.
func (c *Consumer) fetch(got *client.Fetched, max int, wait time.Duration) (note, err error) {
	c.undirty()
	var fs kgo.Fetches
	err = client.Bounded("PollRecords", wait+quickBound, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		fs = c.cl.PollRecords(ctx, max)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r := c.moves.Take(); r != nil {
		m := c.ops.Rebalanced()
		m.Assigned, m.Revoked = append(m.Assigned, r.Assigned...), append(m.Revoked, r.Revoked...)
	}
	fs.EachError(func(t string, p int32, e error) {
		switch {
		case errors.Is(e, context.DeadlineExceeded), errors.Is(e, context.Canceled):
		case errors.Is(e, kgo.ErrClientClosed):
			err = e
		case note == nil:
			note = fmt.Errorf("fetch %s[%d]: %w", t, p, e)
		}
	})
	if err != nil {
		return nil, err
	}
	for _, r := range fs.Records() {
		k, ok := c.key(r.Topic, r.Partition)
		if !ok {
			return nil, fmt.Errorf("franz consumer: record of %s[%d], which no key maps to", r.Topic, r.Partition)
		}
		v, err := strconv.ParseInt(string(r.Value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("franz consumer: key %d offset %d: record value %q is not a workload value", k, r.Offset, r.Value)
		}
		got.Add(k, histories.Record{Offset: r.Offset, Value: v})
	}
	c.handed(got)
	return note, nil
}

// handed notes, for an auto-committing consumer, the records a poll
// handed over: kgo's "dirty" offsets, which its next poll makes the
// committable ones (undirty).
func (c *Consumer) handed(got *client.Fetched) {
	if c.opts.Config.Commit != client.CommitAuto {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty == nil {
		c.dirty = map[histories.Key]int64{}
	}
	for k, next := range got.Next {
		c.dirty[k] = next
	}
}

// undirty is what kgo does at the start of each poll when committing
// automatically (and not greedily): the records earlier polls handed over
// count as processed, and the next automatic commit commits past them.
func (c *Consumer) undirty() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, next := range c.dirty {
		if c.stored == nil {
			c.stored = map[histories.Key]int64{}
		}
		c.stored[k] = next
	}
	c.dirty = nil
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
	if len(res.committed) == 0 {
		// maybe committed: the poll's outcome is unknown too
		commit := histories.Mop{F: histories.MCommit, Offsets: got.Next}
		c.completePoll(inv, histories.Info, []histories.Mop{commit, {F: histories.MPoll, Records: got.Records}}, res.err)
		return nil
	}
	commit := histories.Mop{F: histories.MCommit, Offsets: res.committed}
	if c.crashPoint(client.CrashAfterCommit) {
		// the commit is proven and nothing was processed
		op := c.ops.PollCompletion(inv, histories.OK, []histories.Mop{commit, {F: histories.MPoll}}, res.err)
		client.SetExtra(op, client.ExtraUnprocessed, client.RecordsJSON(got.Records))
		c.ops.RecordPoll(op)
		return c.crashIn(nil, nil)
	}
	processed := make(map[histories.Key][]histories.Record, len(res.committed))
	for k := range res.committed {
		processed[k] = got.Records[k]
	}
	op := c.ops.PollCompletion(inv, histories.OK, []histories.Mop{commit, {F: histories.MPoll, Records: processed}}, res.err)
	if len(res.unproven) > 0 {
		client.SetExtra(op, client.ExtraUncommitted, client.OffsetsJSON(res.unproven))
		c.rewind(got, res.unproven)
	}
	c.ops.RecordPoll(op)
	return nil
}

// rewind sets the position of each key of keys back to its first record
// in got. kgo's SetOffsets cannot fail: a key the group has moved away
// meanwhile is simply not this member's any more.
func (c *Consumer) rewind(got *client.Fetched, keys map[histories.Key]int64) {
	to := map[string]map[int32]kgo.EpochOffset{}
	for k := range keys {
		recs := got.Records[k]
		tp, ok := c.opts.Keys.TP(k)
		if len(recs) == 0 || !ok {
			continue
		}
		if to[*tp.Topic] == nil {
			to[*tp.Topic] = map[int32]kgo.EpochOffset{}
		}
		to[*tp.Topic][tp.Partition] = kgo.EpochOffset{Epoch: -1, Offset: recs[0].Offset}
	}
	if len(to) > 0 {
		c.cl.SetOffsets(to)
	}
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
	c.opts.Recorder.Record(c.ops.CommitCompletion(inv, mops, res.committed, res.unproven, histories.Info, res.err))
	return nil
}

// commitResult is what one commit proved, per key.
type commitResult struct {
	committed map[histories.Key]int64 // stored: the answer or a read-back says so
	unproven  map[histories.Key]int64 // the rest: maybe stored, maybe not
	err       error                   // the commit's error; nil when all stored
}

// commitOffsets commits next with CommitOffsetsSync. A partition the
// broker answered without error is stored. No error proves a commit was
// not stored (kgo retries inside the call, and a request may have reached
// the coordinator before its connection broke), so for the rest the
// group's committed offsets are read back, and every key whose committed
// offset is the one asked for counts as committed. Its error is a hang,
// which ends the process.
func (c *Consumer) commitOffsets(next map[histories.Key]int64) (commitResult, error) {
	res := commitResult{committed: map[histories.Key]int64{}, unproven: map[histories.Key]int64{}}
	offs := c.epochOffsets(next)
	var resp *kmsg.OffsetCommitResponse
	var req *kmsg.OffsetCommitRequest
	err := client.Bounded("CommitOffsetsSync", commitTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
		defer cancel()
		c.cl.CommitOffsetsSync(ctx, offs, func(_ *kgo.Client, q *kmsg.OffsetCommitRequest, r *kmsg.OffsetCommitResponse, e error) {
			req, resp, res.err = q, r, e
		})
		return nil
	})
	if err != nil {
		return res, err
	}
	stored := map[histories.Key]int64{}
	if res.err == nil && resp != nil && req != nil {
		stored = committedParts(c, req, resp)
		if len(stored) < len(next) {
			res.err = firstPartitionError(resp)
		}
	}
	if len(stored) < len(next) {
		read, err := c.readBack(next)
		if err != nil {
			return res, err
		}
		for k, off := range read {
			stored[k] = off
		}
	}
	for k, off := range next {
		if at, ok := stored[k]; ok && at == off {
			res.committed[k] = off
		} else {
			res.unproven[k] = off
		}
	}
	if res.err == nil && len(res.unproven) > 0 {
		res.err = errors.New("franz consumer: the commit's answer did not cover every partition")
	}
	return res, nil
}

// epochOffsets are next as kgo commits them, with no leader epoch.
func (c *Consumer) epochOffsets(next map[histories.Key]int64) map[string]map[int32]kgo.EpochOffset {
	offs := map[string]map[int32]kgo.EpochOffset{}
	for k, off := range next {
		tp, ok := c.opts.Keys.TP(k)
		if !ok {
			continue
		}
		if offs[*tp.Topic] == nil {
			offs[*tp.Topic] = map[int32]kgo.EpochOffset{}
		}
		offs[*tp.Topic][tp.Partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	return offs
}

// readBack is the group's committed offsets of next's keys, as far as the
// coordinator answers; a failed read proves nothing and returns none. Its
// error is a hang.
func (c *Consumer) readBack(next map[histories.Key]int64) (map[histories.Key]int64, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = c.opts.Config.Group
	for t, parts := range c.epochOffsets(next) {
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic = t
		for p := range parts {
			rt.Partitions = append(rt.Partitions, p)
		}
		req.Topics = append(req.Topics, rt)
	}
	var resp *kmsg.OffsetFetchResponse
	err := client.Bounded("OffsetFetch", quickBound, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), quickBound)
		defer cancel()
		var rerr error
		resp, rerr = req.RequestWith(ctx, c.cl)
		return rerr
	})
	read := map[histories.Key]int64{}
	if errors.Is(err, client.ErrClientHang) {
		return nil, err
	}
	if err != nil || resp == nil || resp.ErrorCode != 0 {
		return read, nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if k, ok := c.key(t.Topic, p.Partition); ok && p.ErrorCode == 0 && p.Offset >= 0 {
				read[k] = p.Offset
			}
		}
	}
	return read, nil
}

// firstPartitionError is the first error a partition of resp answered.
func firstPartitionError(resp *kmsg.OffsetCommitResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return fmt.Errorf("commit %s[%d]: %w", t.Topic, p.Partition, kerr.ErrorForCode(p.ErrorCode))
			}
		}
	}
	return errors.New("franz consumer: the commit's answer did not cover every partition")
}
