package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ConsumerOptions configures a Consumer.
type ConsumerOptions struct {
	Bootstrap string
	Config    client.ConsumerConfig
	// Version is the kafka-clients release; "" means kafkadist.Version().
	Version  string
	Keys     *client.KeyMap
	Recorder client.Recorder
	Process  int64
	// Logs takes the JVM's log lines (slf4j, warnings and up); nil:
	// stderr.
	Logs *client.Logs
}

// Bounds of the JVM's answers, beyond which a request counts as hung
// (plus client.HangGrace): quickBound for the calls that only note intent
// or read the group's offsets, commitBound for a commitSync (given it as
// its timeout); a poll is given its wait plus quickBound, since a
// rebalance runs inside it.
const (
	quickBound  = 10 * time.Second
	commitBound = 10 * time.Second
	// closeTimeout is what a clean close is given.
	closeTimeout = 8 * time.Second
)

// Consumer is one consumer process running a Java KafkaConsumer in a JVM
// of its own: it assigns or subscribes, polls and commits, one op at a
// time, and records its ops as client.Consumer does (package doc). Its
// methods are for one goroutine; Crash may be called from any.
type Consumer struct {
	opts ConsumerOptions
	ops  client.ConsumerOps // under opMu
	*jvm                    // Pause and Resume stop it whole (pause-client)
	// Started is how long the JVM took to make its consumer.
	Started time.Duration

	replies chan consumerAnswer // answers to requests, routed by answers
	exited  chan struct{}       // closed once the JVM is reaped
	exit    error               // how the JVM ended; read after exited

	autoCommits client.AutoCommits // proven by the client, not recorded yet

	opMu    sync.Mutex // held for the whole of each op
	lastID  int64
	crashAt atomic.Int32
	ended   atomic.Bool // crashed, closed, dead or hung: no op of this process follows
	crashed atomic.Bool // a requested crash took effect
	// stored is, for an auto-committing consumer, the offset after the
	// last record handed to the worker, per key: the position the
	// client's next automatic commit commits.
	stored map[histories.Key]int64
}

// consumerRequest is one request line of the consumer's protocol.
type consumerRequest struct {
	Op         string `json:"op"`
	ID         int64  `json:"id"`
	Topics     string `json:"topics,omitempty"`
	Partitions string `json:"partitions,omitempty"`
	Offsets    string `json:"offsets,omitempty"`
	Max        int    `json:"max"`
	WaitMS     int64  `json:"wait-ms"`
	TimeoutMS  int64  `json:"timeout-ms"`
}

// consumerAnswer is one line of the consumer's JVM.
type consumerAnswer struct {
	ID         int64               `json:"id"`
	Error      string              `json:"error"`
	Message    string              `json:"message"`
	Items      [][]json.RawMessage `json:"items"`
	Offsets    [][]json.RawMessage `json:"offsets"`
	AutoCommit [][]json.RawMessage `json:"auto-commit"`
	call       string              // the request's op, which its exception names
}

func (a consumerAnswer) exception() *Exception {
	if a.Error == "" {
		return nil
	}
	return &Exception{Class: a.Error, Message: a.Message, Call: a.call}
}

// errJVMGone is the error of an op the JVM never answered because it
// exited unasked.
var errJVMGone = errors.New("java: the JVM exited by itself before answering")

// NewConsumer builds the worker for opts.Version if needed (Ensure) and
// starts its JVM; the consumer does nothing until Assign or Subscribe.
func NewConsumer(ctx context.Context, opts ConsumerOptions) (*Consumer, error) {
	if opts.Keys == nil || opts.Recorder == nil {
		return nil, errors.New("java consumer: Keys and Recorder are required")
	}
	props, err := ConsumerProperties(opts.Config, opts.Bootstrap, fmt.Sprintf("kafkachaos-%d", opts.Process))
	if err != nil {
		return nil, err
	}
	tc, err := Ensure(ctx, opts.Version)
	if err != nil {
		return nil, err
	}
	c := &Consumer{opts: opts, ops: client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process, Group: opts.Config.Group},
		replies: make(chan consumerAnswer, 1), exited: make(chan struct{})}
	args := append([]string{"kafkachaos.role=consumer"}, props...)
	if c.jvm, err = startJVM(tc, args, opts.Logs, "consumer", "java consumer "+processList([]int64{opts.Process})); err != nil {
		return nil, err
	}
	c.Started = c.jvm.started
	go c.answers()
	return c, nil
}

// Process returns the consumer's process id.
func (c *Consumer) Process() int64 { return c.opts.Process }

// Ended reports whether the consumer has ended: crashed, closed, its JVM
// dead or hung. No op of its process follows.
func (c *Consumer) Ended() bool { return c.ended.Load() }

// Crashed reports whether a crash requested by Crash has taken effect.
func (c *Consumer) Crashed() bool { return c.crashed.Load() }

// answers routes the JVM's lines until it exits, then reaps it.
func (c *Consumer) answers() {
	defer close(c.exited)
	for c.jvm.lines.Scan() {
		var a consumerAnswer
		if err := json.Unmarshal(c.jvm.lines.Bytes(), &a); err != nil {
			continue // noise
		}
		switch {
		case a.AutoCommit != nil:
			c.noteAutoCommit(a.AutoCommit)
		case a.ID != 0:
			c.replies <- a // one request at a time: never blocks for long
		}
	}
	c.exit = c.jvm.reap()
}

// noteAutoCommit keeps a commit the client proved, to be recorded once no
// op of this process is open.
func (c *Consumer) noteAutoCommit(tpos [][]json.RawMessage) {
	offs := map[histories.Key]int64{}
	for _, raw := range tpos {
		if k, off, ok := c.keyOffset(raw); ok {
			offs[k] = off
		}
	}
	c.autoCommits.Note(offs)
}

// recordAutoCommits records the commits the client proved since the last
// call as ok commit ops, no op of this process open meanwhile.
func (c *Consumer) recordAutoCommits() { c.autoCommits.Record(&c.ops) }

// keyOffset reads one [topic, partition, offset] of the JVM.
func (c *Consumer) keyOffset(raw []json.RawMessage) (histories.Key, int64, bool) {
	if len(raw) != 3 {
		return 0, 0, false
	}
	k, ok := c.key(raw[0], raw[1])
	var off int64
	if !ok || json.Unmarshal(raw[2], &off) != nil {
		return 0, 0, false
	}
	return k, off, true
}

// key is the key of a topic and partition as the JVM writes them.
func (c *Consumer) key(topic, partition json.RawMessage) (histories.Key, bool) {
	return keyOf(c.opts.Keys, topic, partition)
}

// keyOf is the key of keys of a topic and partition as the JVM writes
// them.
func keyOf(keys *client.KeyMap, topic, partition json.RawMessage) (histories.Key, bool) {
	var t string
	var p int32
	if json.Unmarshal(topic, &t) != nil || json.Unmarshal(partition, &p) != nil {
		return 0, false
	}
	return keys.Key(kafka.TopicPartition{Topic: &t, Partition: p})
}

// request sends req and waits for its answer. Its error ends the process
// (see end): the JVM exited unasked, or it did not answer within bound
// and a grace (a *client.HangError).
func (c *Consumer) request(req consumerRequest, bound time.Duration) (consumerAnswer, error) {
	c.lastID++
	req.ID = c.lastID
	a, err := ask(c.jvm, req, req.ID, req.Op, bound, c.replies, c.exited, &c.exit)
	a.call = req.Op
	return a, err
}

func (a consumerAnswer) answerID() int64 { return a.ID }

// begin takes the op lock, refusing once the consumer has ended.
func (c *Consumer) begin() error {
	c.opMu.Lock()
	if c.ended.Load() {
		c.opMu.Unlock()
		return client.ErrCrashed
	}
	return nil
}

// Subscribe joins the group on every topic of the key map; assignments
// arrive during later polls and are recorded on them. The Java client only
// notes the subscription (nothing is sent until a poll), so an exception
// is a definite failure.
func (c *Consumer) Subscribe() error {
	if c.opts.Config.Group == "" {
		return errors.New("java consumer: subscribe needs a group")
	}
	return c.intent(histories.FSubscribe, c.opts.Keys.Keys(), consumerRequest{Op: "subscribe", Topics: strings.Join(c.opts.Keys.Topics(), ",")})
}

// Assign takes keys from their beginning (assign mode: no group). Like
// Subscribe, it sends nothing itself.
func (c *Consumer) Assign(keys []histories.Key) error {
	parts, err := c.partitions(keys)
	if err != nil {
		return err
	}
	return c.intent(histories.FAssign, keys, consumerRequest{Op: "assign", Partitions: parts})
}

// intent runs an op whose call only notes what the consumer is to read.
func (c *Consumer) intent(f string, keys []histories.Key, req consumerRequest) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	inv := c.ops.Invoke(f, nil, keys)
	a, err := c.request(req, quickBound)
	if err != nil {
		c.ops.Complete(inv, histories.Info, nil, err)
		return c.end(err)
	}
	if exc := a.exception(); exc != nil {
		c.ops.Complete(inv, histories.Fail, nil, exc)
		return exc
	}
	c.ops.Complete(inv, histories.OK, nil, nil)
	return nil
}

// partitions writes keys as the JVM reads them.
func (c *Consumer) partitions(keys []histories.Key) (string, error) {
	offs := make(map[histories.Key]int64, len(keys))
	for _, k := range keys {
		offs[k] = 0
	}
	return c.offsetsArg(offs) // the JVM reads only the partitions
}

// offsetsArg writes per-key offsets as "topic:partition:offset,...".
func (c *Consumer) offsetsArg(offs map[histories.Key]int64) (string, error) {
	return offsetsArg(c.opts.Keys, offs)
}

// offsetsArg writes per-key offsets of keys as
// "topic:partition:offset,...".
func offsetsArg(keys *client.KeyMap, offs map[histories.Key]int64) (string, error) {
	var b strings.Builder
	for k, off := range offs {
		tp, ok := keys.TP(k)
		if !ok {
			return "", fmt.Errorf("java: key %d is not in the key map", k)
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s:%d:%d", *tp.Topic, tp.Partition, off)
	}
	return b.String(), nil
}

// Close leaves cleanly (a clean shutdown, not a crash). An auto-committing
// consumer's close commits its position: that commit is an op, ok when the
// client proved it before the JVM exited, else info (the close may have
// stored it without proof).
func (c *Consumer) Close() error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.ended.Load() {
		return nil
	}
	c.ended.Store(true)
	var inv *histories.Op
	if c.opts.Config.Commit == client.CommitAuto && len(c.stored) > 0 {
		c.recordAutoCommits()
		inv = c.ops.Invoke(histories.FCommit, []histories.Mop{{F: histories.MCommit, Offsets: c.stored}}, nil)
	}
	err := c.jvm.close(closeTimeout, c.exited, "consumer")
	if inv != nil {
		t, why := histories.Info, errCleanClose
		if c.autoCommits.Proven(c.stored) {
			t, why = histories.OK, nil
		}
		c.ops.Complete(inv, t, inv.Mops, why)
		c.stored = nil
	}
	c.recordAutoCommits()
	return err
}

// errCleanClose is the error of the close's commit op when the client did
// not prove it.
var errCleanClose = errors.New("java: consumer closed; the close commits these offsets unless its request fails")
