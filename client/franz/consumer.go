package franz

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ConsumerOpts configures a Consumer.
type ConsumerOpts struct {
	Bootstrap string
	Config    client.ConsumerConfig
	Keys      *client.KeyMap
	Recorder  client.Recorder
	Process   int64
}

// Bounds of kgo's calls, past which (plus client.HangGrace) a call counts
// as hung: a poll is given its wait plus quickBound, since a rebalance's
// callbacks (an automatic commit on revoke among them) hold it; a commit
// and the read-back of the group's offsets are given their own timeouts.
const (
	quickBound    = 10 * time.Second
	commitTimeout = 10 * time.Second
	// leaveTimeout is what a clean close's leave is given, closeTimeout
	// the whole close.
	leaveTimeout = 3 * time.Second
	closeTimeout = 8 * time.Second
)

// Consumer is one consumer process running a kgo client in this process:
// it assigns or subscribes, polls and commits, one op at a time, and
// records its ops as client.Consumer does (package doc). Its methods are
// for one goroutine; Crash may be called from any.
type Consumer struct {
	opts ConsumerOpts
	ops  client.ConsumerOps // under opMu
	cl   *kgo.Client
	link *link

	autoCommits client.AutoCommits // stored by the broker, not recorded yet

	moves *moves // keys the group moved since the last poll took them

	mu sync.Mutex
	// stored is, for an auto-committing consumer, the offset after the
	// last record handed to the worker, per key: the position kgo's next
	// automatic commit commits. Under mu: a revoke drops its keys.
	stored map[histories.Key]int64
	dirty  map[histories.Key]int64 // handed over by the last poll, committable after the next (undirty)
	proved map[histories.Key]int64 // the last automatic commit the broker stored, per key

	opMu    sync.Mutex // held for the whole of each op
	crashAt atomic.Int32
	ended   atomic.Bool // crashed, closed or hung: no op of this process follows
	crashed atomic.Bool // a requested crash took effect
}

// NewConsumer makes the kgo client; it does nothing until Assign or
// Subscribe names what it reads. kgo connects lazily: a bad bootstrap
// shows as empty polls, not here.
func NewConsumer(opts ConsumerOpts) (*Consumer, error) {
	if opts.Keys == nil || opts.Recorder == nil {
		return nil, errors.New("franz consumer: Keys and Recorder are required")
	}
	if _, err := ConsumerOptions(opts.Config, opts.Bootstrap); err != nil {
		return nil, err
	}
	return &Consumer{opts: opts, link: &link{}, moves: &moves{keys: opts.Keys},
		ops: client.ConsumerOps{Recorder: opts.Recorder, Process: opts.Process, Group: opts.Config.Group}}, nil
}

// Process returns the consumer's process id.
func (c *Consumer) Process() int64 { return c.opts.Process }

// Ended reports whether the consumer has ended: crashed, closed or hung.
// No op of its process follows.
func (c *Consumer) Ended() bool { return c.ended.Load() }

// Crashed reports whether a crash requested by Crash has taken effect.
func (c *Consumer) Crashed() bool { return c.crashed.Load() }

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
// arrive during later polls and are recorded on them. kgo only notes the
// subscription here (the join runs in the background), so an error is a
// definite failure.
func (c *Consumer) Subscribe() error {
	if c.opts.Config.Group == "" {
		return errors.New("franz consumer: subscribe needs a group")
	}
	return c.start(histories.FSubscribe, c.opts.Keys.Keys(), kgo.ConsumeTopics(c.opts.Keys.Topics()...),
		kgo.OnPartitionsAssigned(c.onAssigned), kgo.OnPartitionsRevoked(c.onRevoked), kgo.OnPartitionsLost(c.onLost))
}

// Assign takes keys from their beginning (assign mode: no group).
func (c *Consumer) Assign(keys []histories.Key) error {
	parts := map[string]map[int32]kgo.Offset{}
	for _, k := range keys {
		tp, ok := c.opts.Keys.TP(k)
		if !ok {
			return fmt.Errorf("franz consumer: key %d is not in the key map", k)
		}
		if parts[*tp.Topic] == nil {
			parts[*tp.Topic] = map[int32]kgo.Offset{}
		}
		parts[*tp.Topic][tp.Partition] = kgo.NewOffset().AtStart()
	}
	return c.start(histories.FAssign, keys, kgo.ConsumePartitions(parts))
}

// start makes the kgo client with what it reads, as op f.
func (c *Consumer) start(f string, keys []histories.Key, reads ...kgo.Opt) error {
	if err := c.begin(); err != nil {
		return err
	}
	defer c.opMu.Unlock()
	inv := c.ops.Invoke(f, nil, keys)
	opts, err := ConsumerOptions(c.opts.Config, c.opts.Bootstrap)
	if err == nil {
		opts = append(append(opts, kgo.Dialer(c.link.dial)), reads...)
		if c.opts.Config.Commit == client.CommitAuto {
			opts = append(opts, kgo.AutoCommitCallback(c.noteAutoCommit))
		}
		c.cl, err = kgo.NewClient(opts...)
	}
	if err != nil {
		c.ops.Complete(inv, histories.Fail, nil, err)
		return fmt.Errorf("franz consumer: %w", err)
	}
	c.ops.Complete(inv, histories.OK, nil, nil)
	return nil
}

// onAssigned, onRevoked and onLost keep the keys the group moved, for the
// poll op that follows. An auto-committing consumer's revoke commits the
// committable positions first, as kgo's own revoke does (a callback of
// ours replaces it): the records of polls before the last, not the last
// poll's (kgo's one-poll lag, which makes its automatic commits
// at-least-once). A lost partition is not committed (its generation is
// gone). A revoked or lost key leaves the positions.
func (c *Consumer) onAssigned(ctx context.Context, cl *kgo.Client, m map[string][]int32) {
	c.moves.assigned(ctx, cl, m)
}

func (c *Consumer) onRevoked(ctx context.Context, cl *kgo.Client, m map[string][]int32) {
	if c.opts.Config.Commit == client.CommitAuto {
		c.mu.Lock()
		offs := c.epochOffsets(c.stored)
		c.mu.Unlock()
		cctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
		cl.CommitOffsetsSync(cctx, offs, c.noteAutoCommit)
		cancel()
	}
	c.onLost(ctx, cl, m)
}

func (c *Consumer) onLost(ctx context.Context, cl *kgo.Client, m map[string][]int32) {
	c.moves.revoked(ctx, cl, m)
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, ps := range m {
		for _, p := range ps {
			if k, ok := c.key(t, p); ok {
				delete(c.stored, k)
				delete(c.dirty, k)
			}
		}
	}
}

// key is the key of a topic and partition.
func (c *Consumer) key(topic string, partition int32) (histories.Key, bool) {
	return c.opts.Keys.Key(kafka.TopicPartition{Topic: &topic, Partition: partition})
}

// noteAutoCommit keeps the keys of an automatic commit the broker stored
// (a partition answered without error), to be recorded once no op of this
// process is open. A commit answered after the process ended is left to
// the info commit op its end records.
func (c *Consumer) noteAutoCommit(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
	if err != nil || resp == nil || c.ended.Load() {
		return
	}
	offs := committedParts(c, req, resp)
	if len(offs) == 0 {
		return
	}
	c.autoCommits.Note(offs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proved == nil {
		c.proved = map[histories.Key]int64{}
	}
	for k, off := range offs {
		c.proved[k] = off
	}
}

// committedParts are the offsets of req, per key, whose partition resp
// answered without error.
func committedParts(c *Consumer, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse) map[histories.Key]int64 {
	asked := map[histories.Key]int64{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if k, ok := c.key(t.Topic, p.Partition); ok {
				asked[k] = p.Offset
			}
		}
	}
	offs := map[histories.Key]int64{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if k, ok := c.key(t.Topic, p.Partition); ok && p.ErrorCode == 0 {
				if off, asked := asked[k]; asked {
					offs[k] = off
				}
			}
		}
	}
	return offs
}

// recordAutoCommits records the commits the broker stored since the last
// call as ok commit ops, no op of this process open meanwhile.
func (c *Consumer) recordAutoCommits() { c.autoCommits.Record(&c.ops) }

// Close leaves cleanly: kgo leaves the group and, when auto-committing,
// commits its position first. That commit is an op, ok when the broker
// stored it, else info (the leave may have stored it unanswered). kgo's
// leave waits for a join in flight, which the coordinator holds while it
// waits for members gone silent (crashed ones, until their session ends):
// a leave not done within leaveTimeout is given up, the client's
// connections cut as a process's exit would, and Close says so. A close
// that outlives closeTimeout and a grace is a hang.
func (c *Consumer) Close() error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.ended.Load() {
		return nil
	}
	if c.cl == nil {
		c.ended.Store(true)
		return nil
	}
	pos := c.takePosition()
	var inv *histories.Op
	if len(pos) > 0 {
		c.recordAutoCommits()
		inv = c.ops.Invoke(histories.FCommit, []histories.Mop{{F: histories.MCommit, Offsets: pos}}, nil)
	}
	var left error
	err := client.Bounded("Close", closeTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
		defer cancel()
		c.cl.AllowRebalance()
		if left = c.cl.LeaveGroupContext(ctx); left != nil {
			c.link.sever()
		}
		c.cl.Close()
		return nil
	})
	if err == nil && left != nil {
		err = fmt.Errorf("franz consumer: the leave did not finish within %v (%w); connections cut instead", leaveTimeout, left)
	}
	c.ended.Store(true)
	if err != nil {
		c.link.sever()
	}
	if inv != nil {
		t, why := histories.Info, errCleanClose
		if c.autoCommits.Proven(pos) {
			t, why = histories.OK, nil
		}
		c.ops.Complete(inv, t, inv.Mops, why)
	}
	c.recordAutoCommits()
	return err
}

// takePosition is stored, which it clears, less the keys whose position
// the broker has stored already: what the consumer's next automatic
// commit, or its last, commits anew.
func (c *Consumer) takePosition() map[histories.Key]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	pos := c.stored
	c.stored = nil
	for k, off := range pos {
		if at, ok := c.proved[k]; ok && at == off {
			delete(pos, k)
		}
	}
	return pos
}

// errCleanClose is the error of the close's commit op when the broker's
// answer did not prove it.
var errCleanClose = errors.New("franz consumer: closed; the leave commits these offsets unless its request fails")
