package client

import (
	"context"
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
	inv := c.invoke(histories.FPoll, []histories.Mop{{F: histories.MPoll}}, nil)
	c.rebalance = nil
	got, err := c.fetch(ctx, max, wait)
	mops := []histories.Mop{{F: histories.MPoll, Records: got.records}}
	if err != nil {
		c.completePoll(inv, completion(err), mops, err)
		return got, err
	}
	if c.crashPoint(CrashAnywhere) {
		return got, c.crashIn(inv, mops)
	}
	if c.opts.Config.Commit == CommitBeforeProcessing && len(got.next) > 0 {
		// The commit is a mop of the poll op, before the poll mop: a
		// process has one op open at a time, and this commit happens
		// inside the poll, before processing.
		commit := histories.Mop{F: histories.MCommit, Offsets: got.next}
		switch err := c.commitOffsets(got.next); completion(err) {
		case histories.OK:
			mops = []histories.Mop{commit, mops[0]}
		case histories.Info:
			// Maybe committed: the poll's outcome is unknown too.
			c.completePoll(inv, histories.Info, []histories.Mop{commit, mops[0]}, err)
			return got, nil
		}
		if c.crashPoint(CrashAfterCommit) {
			return got, c.crashIn(inv, mops)
		}
	}
	c.completePoll(inv, histories.OK, mops, nil)
	if c.opts.Config.Commit == CommitAfterProcessing && len(got.next) > 0 {
		if c.crashPoint(CrashBeforeCommit) {
			return got, c.crashIn(nil, nil)
		}
		c.commit(got.next)
	}
	c.recordAutoCommits()
	return got, nil
}

func (c *Consumer) completePoll(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops, Group: inv.Group, Rebalance: c.rebalance}
	if err != nil {
		op.Error = err.Error()
	}
	c.opts.Recorder.Record(op)
	c.rebalance = nil
}

// fetch polls librdkafka until max records, wait elapsed, or every assigned
// key reported its end.
func (c *Consumer) fetch(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	got := &fetched{records: map[histories.Key][]histories.Record{}, next: map[histories.Key]int64{}, eof: map[histories.Key]int64{}}
	deadline := time.Now().Add(wait)
	for got.n < max {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		if err := c.handle(c.kc.Poll(int(min(left, 50*time.Millisecond)/time.Millisecond)), got); err != nil {
			return got, err
		}
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
		got.records[k] = append(got.records[k], histories.Record{Offset: off, Value: v})
		got.next[k] = off + 1
		delete(got.eof, k)
		got.n++
	case kafka.PartitionEOF:
		if k, ok := c.opts.Keys.Key(kafka.TopicPartition(e)); ok {
			got.eof[k] = int64(e.Offset)
		}
	case kafka.OffsetsCommitted:
		if e.Error == nil {
			c.noteAutoCommit(e.Offsets)
		}
	case kafka.Error:
		if e.IsFatal() {
			return e
		}
	}
	return nil
}

func (c *Consumer) noteAutoCommit(tps []kafka.TopicPartition) {
	offs := map[histories.Key]int64{}
	for _, tp := range tps {
		if k, ok := c.opts.Keys.Key(tp); ok && tp.Error == nil && tp.Offset >= 0 {
			offs[k] = int64(tp.Offset)
		}
	}
	if len(offs) > 0 {
		c.autoCommits = append(c.autoCommits, offs)
	}
}

// recordAutoCommits records the background commits librdkafka reported
// during the last poll as commit ops. They are recorded when reported,
// after they happened; no op of this process was open meanwhile.
func (c *Consumer) recordAutoCommits() {
	for _, offs := range c.autoCommits {
		mops := []histories.Mop{{F: histories.MCommit, Offsets: offs}}
		inv := c.invoke(histories.FCommit, mops, nil)
		c.complete(inv, histories.OK, mops, nil)
	}
	c.autoCommits = nil
}

// commit runs one commit op for the given next offsets.
func (c *Consumer) commit(next map[histories.Key]int64) {
	mops := []histories.Mop{{F: histories.MCommit, Offsets: next}}
	inv := c.invoke(histories.FCommit, mops, nil)
	err := c.commitOffsets(next)
	c.complete(inv, completion(err), mops, err)
}

// commitOffsets commits next offsets synchronously.
func (c *Consumer) commitOffsets(next map[histories.Key]int64) error {
	tps := make([]kafka.TopicPartition, 0, len(next))
	for k, off := range next {
		tp, _ := c.opts.Keys.TP(k)
		tp.Offset = kafka.Offset(off)
		tps = append(tps, tp)
	}
	res, err := c.kc.CommitOffsets(tps)
	if err == nil {
		err = firstPartitionError(res)
	}
	return err
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
	c.commit(next)
	return nil
}
