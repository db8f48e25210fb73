package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
	// Logs, when set, takes librdkafka's own log lines; nil leaves them
	// on stderr.
	Logs *Logs

	// worker names the process in its log lines; "" means "consumer pN".
	// The copier and the final reads, which run a Consumer, name theirs.
	worker string
	// callTimeout, when set (tests), replaces the timeouts the bounded
	// calls are given (see Consumer.call).
	callTimeout time.Duration
	// wrap, when set (tests), wraps the librdkafka handle, e.g. to make
	// one call hang as librdkafka's sometimes do.
	wrap func(consumerHandle) consumerHandle
}

// consumerHandle is what a Consumer (and its Copier) calls on librdkafka:
// *kafka.Consumer, goneHandle once it is abandoned, or in tests a wrapper.
//
// Bounded (see Consumer.call), because they wait for a broker or for
// another librdkafka thread with no bound of their own, or one librdkafka
// may ignore: Poll (a rebalance inside it runs the assign, an op request
// to the main thread that waits without a timeout), CommitOffsets (waits
// for its result with rd_kafka_queue_poll(-1)), Committed and
// QueryWatermarkOffsets (a timeout librdkafka may not keep), Assign,
// SubscribeTopics and Seek (op requests that wait for librdkafka's threads
// without a timeout; confluent's Seek ignores its timeout argument), and
// Close (loops until rd_kafka_consumer_closed). Not bounded: StoreMessage
// and GetConsumerGroupMetadata only copy under a lock of librdkafka's, with
// no request and no other thread to wait for, and are called per record
// or per transaction, where a goroutine and a timer each would cost more
// than the risk. Assignment, Seek and Committed as the copier calls them
// are the copier's to bound (txn_step.go).
type consumerHandle interface {
	Assign(partitions []kafka.TopicPartition) error
	SubscribeTopics(topics []string, cb kafka.RebalanceCb) error
	Poll(timeoutMs int) kafka.Event
	StoreMessage(m *kafka.Message) ([]kafka.TopicPartition, error)
	Seek(partition kafka.TopicPartition, ignoredTimeoutMs int) error
	CommitOffsets(offsets []kafka.TopicPartition) ([]kafka.TopicPartition, error)
	Committed(partitions []kafka.TopicPartition, timeoutMs int) ([]kafka.TopicPartition, error)
	QueryWatermarkOffsets(topic string, partition int32, timeoutMs int) (low, high int64, err error)
	Assignment() ([]kafka.TopicPartition, error)
	GetConsumerGroupMetadata() (*kafka.ConsumerGroupMetadata, error)
	Close() error
}

// Consumer is one consumer process: it assigns or subscribes, polls and
// commits, one op at a time. Its methods are for one goroutine; Crash may be
// called from any.
type Consumer struct {
	opts ConsumerOptions
	ops  ConsumerOps // the worker's; onRebalance adds to its Rebalance inside a Poll (see rebMu)
	// kc is the librdkafka handle; goneHandle once a call on it hung.
	// Read and written under opMu (or before the consumer is shared).
	kc consumerHandle

	opMu        sync.Mutex // held for the whole of each op
	crashAt     atomic.Int32
	ended       atomic.Bool // crashed, closed or abandoned hung: no op of this process follows
	crashed     atomic.Bool // a requested crash took effect (ended is set too)
	autoCommits []autoCommit
	// stored is, for an auto-committing consumer, the offset after the
	// last record handed to the worker, per key: what librdkafka's next
	// auto-commit, and its close, commit.
	stored map[histories.Key]int64

	// rebMu orders onRebalance, which runs inside a Poll on the bounded
	// call's goroutine, against abandon: once a Poll is given up, its
	// goroutine may still run the callback, which must then not touch
	// ops.Rebalance.
	rebMu sync.Mutex
	gone  bool // under rebMu: the handle is abandoned
	// revoked (under rebMu) are the keys onRebalance saw revoked since
	// the current op last looked (takeRevoked).
	revoked []histories.Key
	// hang is the first call given up as hung; hangDone once its
	// client-hang op is recorded. Under opMu.
	hang     *HangError
	hangDone bool
	fenced   bool // a fence was tried (crash or hang): not again

	// stallReq is a stall requested and not yet held (consumer_stall.go);
	// waking the stall just resumed, until the next poll op takes it as
	// wakingPoll; maxPoll librdkafka's MAX_POLL_EXCEEDED in the current
	// poll op. All but stallReq are the worker's, under opMu.
	stallReq           atomic.Pointer[Stall]
	waking, wakingPoll *Stall
	maxPoll            error
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
	// crashInTxn: the transactional workers' own point (Copier.Crash,
	// TxnQueue.Crash), after a transaction's records were sent and before
	// its commit. The consumer's poll never checks it: the polls inside a
	// transaction run to completion.
	crashInTxn
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
	c := &Consumer{opts: opts, ops: ConsumerOps{Recorder: opts.Recorder, Process: opts.Process, Group: opts.Config.Group}}
	(*cm)["client.id"] = c.clientID()
	opts.Logs.configure(cm, opts.Config.Extra)
	kc, err := kafka.NewConsumer(cm)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	if opts.worker == "" {
		opts.worker = "consumer " + processList([]int64{opts.Process})
	}
	opts.Logs.drain(opts.worker, kc.Logs())
	c.kc = kc
	if opts.wrap != nil {
		c.kc = opts.wrap(kc)
	}
	return c, nil
}

// Process returns the consumer's process id.
func (c *Consumer) Process() int64 { return c.opts.Process }

// begin takes the op lock, refusing once the consumer has ended.
func (c *Consumer) begin() error {
	c.opMu.Lock()
	if c.ended.Load() {
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
	inv := c.ops.Invoke(histories.FAssign, nil, keys)
	err := c.call("Assign", c.timeout(quickTimeout), func(kc consumerHandle) error { return kc.Assign(tps) })
	c.ops.Complete(inv, completion(err), nil, err)
	if herr := c.hangOp(); herr != nil {
		return herr
	}
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
	inv := c.ops.Invoke(histories.FSubscribe, nil, c.opts.Keys.Keys())
	err := c.call("SubscribeTopics", c.timeout(quickTimeout), func(kc consumerHandle) error {
		return kc.SubscribeTopics(c.opts.Keys.Topics(), c.onRebalance)
	})
	c.ops.Complete(inv, completion(err), nil, err)
	if herr := c.hangOp(); herr != nil {
		return herr
	}
	return err
}

// onRebalance runs inside kc.Poll, i.e. inside a poll op: it notes what
// moved and lets librdkafka do the (un)assignment.
func (c *Consumer) onRebalance(_ *kafka.Consumer, ev kafka.Event) error {
	c.rebMu.Lock()
	defer c.rebMu.Unlock()
	if c.gone {
		return nil // a Poll given up as hung, returning late
	}
	r := c.ops.Rebalanced()
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		r.Assigned = append(r.Assigned, c.keysOf(e.Partitions)...)
	case kafka.RevokedPartitions:
		keys := c.keysOf(e.Partitions)
		r.Revoked = append(r.Revoked, keys...)
		c.revoked = append(c.revoked, keys...)
	}
	return nil
}

// takeRevoked returns the keys revoked since its last call.
func (c *Consumer) takeRevoked() []histories.Key {
	c.rebMu.Lock()
	defer c.rebMu.Unlock()
	keys := c.revoked
	c.revoked = nil
	return keys
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
