package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// MemberFencer makes a crashed group member's clean-up requests fail at the
// broker, so that closing its librdkafka handle (the only way to stop its
// threads) does not leave the group or commit on its behalf: the group sees
// what it would see of a dead process. The embedded cluster implements it.
type MemberFencer interface {
	// FenceClient fences every member of group whose client.id is
	// clientID, for good: a crashed process's member never returns.
	FenceClient(ctx context.Context, group, clientID string) error
}

// ConsumerOptions configures a Consumer.
type ConsumerOptions struct {
	Bootstrap string
	Config    ConsumerConfig
	Keys      *KeyMap
	Recorder  Recorder
	Process   int64
	// Fencer, when set, makes Crash honest for group members; without it
	// a crash still stops the worker but librdkafka's close may leave the
	// group cleanly, and the crash op says so.
	Fencer MemberFencer
}

// Consumer is one consumer process: it assigns or subscribes, polls and
// commits, one op at a time. Its methods are for one goroutine; Crash may be
// called from any.
type Consumer struct {
	opts ConsumerOptions
	kc   *kafka.Consumer

	opMu        sync.Mutex // held for the whole of each op
	crashAt     atomic.Int32
	crashed     atomic.Bool
	rebalance   *histories.Rebalance // collected during the current poll
	autoCommits []autoCommit
	// stored is, for an auto-committing consumer, the offset after the
	// last record handed to the worker, per key: what librdkafka's next
	// auto-commit, and its close, commit.
	stored map[histories.Key]int64
}

// CrashPoint says where in a poll a requested crash takes effect.
type CrashPoint int32

const (
	noCrash CrashPoint = iota
	// CrashAnywhere: at the next point the worker checks.
	CrashAnywhere
	// CrashAfterCommit: a poll's offsets are committed but the poll is not
	// processed (the window commit-before-processing loses records in).
	// For an auto-committing consumer: librdkafka's background commit has
	// covered records of the poll, which is not processed (auto-commit's
	// at-most-once window).
	CrashAfterCommit
	// CrashBeforeCommit: a poll is processed but its offsets are not
	// committed (the window commit-after-processing redelivers in).
	CrashBeforeCommit
)

// NewConsumer creates a consumer; it does nothing until Assign or Subscribe.
func NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	if opts.Keys == nil || opts.Recorder == nil {
		return nil, errors.New("consumer: Keys and Recorder are required")
	}
	cm, err := opts.Config.ConfigMap(opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	c := &Consumer{opts: opts}
	(*cm)["client.id"] = c.clientID()
	kc, err := kafka.NewConsumer(cm)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	c.kc = kc
	return c, nil
}

// Process returns the consumer's process id.
func (c *Consumer) Process() int64 { return c.opts.Process }

func (c *Consumer) invoke(f string, mops []histories.Mop, keys []histories.Key) *histories.Op {
	return c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Invoke, F: f,
		Mops: mops, Keys: keys, Group: c.opts.Config.Group})
}

func (c *Consumer) complete(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) *histories.Op {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops, Keys: inv.Keys, Group: inv.Group}
	if err != nil {
		op.Error = err.Error()
	}
	return c.opts.Recorder.Record(op)
}

// begin takes the op lock, refusing once crashed.
func (c *Consumer) begin() error {
	c.opMu.Lock()
	if c.crashed.Load() {
		c.opMu.Unlock()
		return ErrCrashed
	}
	return nil
}

// Assign takes keys from their beginning (assign mode: no group).
func (c *Consumer) Assign(keys []histories.Key) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	tps := make([]kafka.TopicPartition, 0, len(keys))
	for _, k := range keys {
		tp, ok := c.opts.Keys.TP(k)
		if !ok {
			return fmt.Errorf("consumer: assign: key %d is not in the key map", k)
		}
		tp.Offset = kafka.OffsetBeginning
		tps = append(tps, tp)
	}
	inv := c.invoke(histories.FAssign, nil, keys)
	err := c.kc.Assign(tps)
	c.complete(inv, completion(err), nil, err)
	return err
}

// Subscribe joins the group on every topic of the key map. Assignments
// arrive during later polls and are recorded on them.
func (c *Consumer) Subscribe() error {
	if c.opts.Config.Group == "" {
		return errors.New("consumer: subscribe needs a group")
	}
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	inv := c.invoke(histories.FSubscribe, nil, c.opts.Keys.Keys())
	err := c.kc.SubscribeTopics(c.opts.Keys.Topics(), c.onRebalance)
	c.complete(inv, completion(err), nil, err)
	return err
}

// onRebalance runs inside kc.Poll, i.e. inside a poll op: it notes what
// moved and lets librdkafka do the (un)assignment.
func (c *Consumer) onRebalance(_ *kafka.Consumer, ev kafka.Event) error {
	if c.rebalance == nil {
		c.rebalance = &histories.Rebalance{}
	}
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		c.rebalance.Assigned = append(c.rebalance.Assigned, c.keysOf(e.Partitions)...)
	case kafka.RevokedPartitions:
		c.rebalance.Revoked = append(c.rebalance.Revoked, c.keysOf(e.Partitions)...)
	}
	return nil
}

func (c *Consumer) keysOf(tps []kafka.TopicPartition) []histories.Key {
	var out []histories.Key
	for _, tp := range tps {
		if k, ok := c.opts.Keys.Key(tp); ok {
			out = append(out, k)
		}
	}
	return out
}
