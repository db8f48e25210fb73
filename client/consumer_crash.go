package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrUnreachableCrashPoint is returned by Crash for a point the consumer's
// commit strategy never passes: such a crash could never take effect.
var ErrUnreachableCrashPoint = errors.New("client: the consumer's commit strategy never reaches this crash point")

// Crash requests a crash at point. A crash at CrashAnywhere of an idle
// consumer happens at once; otherwise the worker crashes when its poll
// reaches the point. A later request replaces an earlier one that has not
// fired yet. A point the commit strategy never reaches is refused
// (ErrUnreachableCrashPoint). After the crash the process id is dead;
// Crashed tells whether the crash has taken effect.
func (c *Consumer) Crash(point CrashPoint) error {
	if !c.reaches(point) {
		return fmt.Errorf("%w: %v with commit %q", ErrUnreachableCrashPoint, point, c.opts.Config.Commit)
	}
	c.crashAt.Store(int32(point))
	if point == CrashAnywhere && c.opMu.TryLock() {
		defer c.opMu.Unlock()
		if !c.ended.Load() {
			c.crashIn(nil, nil)
		}
	}
	return nil
}

// reaches reports whether a poll of this consumer passes point.
func (c *Consumer) reaches(point CrashPoint) bool {
	switch point {
	case CrashAnywhere:
		return true
	case CrashAfterCommit:
		return c.opts.Config.Commit == CommitBeforeProcessing || c.opts.Config.Commit == CommitAuto
	case CrashBeforeCommit:
		return c.opts.Config.Commit == CommitAfterProcessing
	case crashInTxn:
		return true
	}
	return false
}

// String names the point as scenario.json does.
func (p CrashPoint) String() string {
	switch p {
	case CrashAnywhere:
		return "anywhere"
	case CrashAfterCommit:
		return "after-commit"
	case CrashBeforeCommit:
		return "before-commit"
	case crashInTxn:
		return "in-txn"
	}
	return fmt.Sprintf("CrashPoint(%d)", int32(p))
}

// Ended reports whether the consumer has ended: crashed, closed, or
// abandoned after a hung call. No op of its process follows.
func (c *Consumer) Ended() bool { return c.ended.Load() }

// Crashed reports whether a crash requested by Crash (or Copier.Crash) has
// taken effect. A clean Close ends the consumer without crashing it: a
// fault that asked for a crash counts only when this is true.
func (c *Consumer) Crashed() bool { return c.crashed.Load() }

// crashPoint reports whether a requested crash fires at point p.
func (c *Consumer) crashPoint(p CrashPoint) bool {
	at := CrashPoint(c.crashAt.Load())
	return at == p || at == CrashAnywhere
}

// crashIn crashes the worker with open (if any) still in progress: open
// completes as info with what it had fetched (fetched, not processed), a
// crash op follows, and the handle is torn down. Called with opMu held.
// Should draining the handle hang, the process ends with the client-hang op
// instead of the crash op (one last op per process; the hang is the finding).
func (c *Consumer) crashIn(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		c.completePoll(open, histories.Info, mops, ErrCrashed)
	}
	c.recordAutoCommits()
	value := c.fence()
	c.fenced = true // tried: hangOp must not fence again
	if !value.Fenced {
		c.closeCommitDone(c.closeCommit(), errCloseCommit)
		c.stored = nil // recorded as what the close may commit
	} else {
		c.drainCommits()
	}
	if c.hang != nil {
		err := c.hangOp()
		c.crashed.Store(true) // torn down mid-op as asked; the hang is its last op
		return err
	}
	c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Info, F: histories.FCrash,
		Group: c.opts.Config.Group, Value: value.json()})
	c.crashed.Store(true)
	c.ended.Store(true)
	// Close is the only way to stop librdkafka's threads. With the member
	// fenced, its leave and commits fail at the broker, so the group sees
	// a member that went silent, as after a real crash. Detached, and
	// nothing ever waits for it: a close that hangs leaks a goroutine, not
	// the run. (It cannot be recorded: the crash op is the process's last.)
	go c.kc.Close()
	return ErrCrashed
}

// fence fences the crashed member if the consumer is in a group and has a
// Fencer.
func (c *Consumer) fence() crashValue {
	var value crashValue
	if c.opts.Config.Group == "" || c.opts.Fencer == nil {
		return value
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.opts.Fencer.FenceClient(ctx, c.opts.Config.Group, c.clientID())
	value.Fenced = err == nil
	if err != nil {
		value.FenceError = err.Error()
	}
	return value
}

// closeCommit invokes, as a commit op, what the close of an
// auto-committing consumer may commit: librdkafka's close commits the
// stored offsets (those of the records handed to the worker, see store)
// before it leaves the group. It returns nil when there is nothing to
// commit; the caller completes the op once the close is over or given up
// on. Consumers of the other strategies run with enable.auto.commit=false
// (see ConsumerConfig.ConfigMap), so their close commits nothing.
func (c *Consumer) closeCommit() *histories.Op {
	if c.opts.Config.Commit != CommitAuto || len(c.stored) == 0 {
		return nil
	}
	c.drainCommits()
	return c.ops.Invoke(histories.FCommit, []histories.Mop{{F: histories.MCommit, Offsets: maps.Clone(c.stored)}}, nil)
}

// drainCommits records the background commits librdkafka has reported but
// no poll has read yet, so that none is lost with the handle. Records it
// returns meanwhile are dropped unstored: no worker sees them.
func (c *Consumer) drainCommits() {
	for range maxDrain {
		ev, err := c.pollEvent(0)
		if ev == nil || err != nil {
			break
		}
		if e, ok := ev.(kafka.OffsetsCommitted); ok {
			c.noteAutoCommit(e)
		}
	}
	c.recordAutoCommits()
}

// maxDrain bounds drainCommits: events queued behind a stream of records
// are not worth waiting for.
const maxDrain = 1000

// closeCommitDone completes a closeCommit op as info: the close's commit
// is neither seen nor refused by anything the worker can read.
func (c *Consumer) closeCommitDone(inv *histories.Op, why error) {
	if inv != nil {
		c.ops.Complete(inv, histories.Info, inv.Mops, why)
	}
}

// errCloseCommit is the error of the info commit op recordCloseCommit
// records.
var errCloseCommit = errors.New("client: consumer closed unfenced at its crash; the close may commit these offsets")

// errCleanClose is the error of the commit op of a clean close.
var errCleanClose = errors.New("client: consumer closed; the close commits these offsets unless its request fails")

// clientID is the librdkafka client.id of this process, which a fencer uses
// to find its group member.
func (c *Consumer) clientID() string { return fmt.Sprintf("kafkachaos-%d", c.opts.Process) }

// Close leaves cleanly (a clean shutdown, not a crash). librdkafka's close
// is bounded (closeTimeout): one that hangs is a client-hang, recorded as
// the process's last op, and Close returns an error matching ErrClientHang.
func (c *Consumer) Close() error { return c.closeWithin(c.timeout(closeTimeout)) }

// closeTimeout is what a clean close is given. Below the copier's call
// timeout (10s in the runner), under which Copier.Close also bounds this
// Close: this bound, being shorter, gives up first and records the hang
// (as a non-*HangError, so the copier does not record it again).
const closeTimeout = 8 * time.Second

func (c *Consumer) closeWithin(timeout time.Duration) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.ended.Load() {
		return nil
	}
	c.ended.Store(true) // no more ops from this process
	inv := c.closeCommit()
	err := c.call("Close", timeout, func(kc consumerHandle) error { return kc.Close() })
	why := errCleanClose
	if c.hang != nil {
		why = fmt.Errorf("%w: %w", errCleanClose, c.hang)
	}
	c.closeCommitDone(inv, why)
	c.stored = nil // recorded as what the close commits
	if herr := c.hangOp(); herr != nil {
		return herr
	}
	return err
}

// Timeouts of the bounded calls (see call); ConsumerOptions.callTimeout
// replaces them in tests. Poll is given its own wait.
const (
	// quickTimeout: Assign and SubscribeTopics, which only wait for
	// librdkafka's main thread.
	quickTimeout = 10 * time.Second
	// minCommitTimeout: CommitOffsets is given the session timeout, at
	// least this (a commit's coordinator may be moving).
	minCommitTimeout = 10 * time.Second
)

// timeout is d, or the test override.
func (c *Consumer) timeout(d time.Duration) time.Duration {
	if c.opts.callTimeout > 0 {
		return c.opts.callTimeout
	}
	return d
}

// commitTimeout is what CommitOffsets is given.
func (c *Consumer) commitTimeout() time.Duration {
	return c.timeout(max(c.opts.Config.SessionTimeout, minCommitTimeout))
}

// call runs fn on the handle through Bounded (see consumerHandle for which
// calls are bounded). A call still blocked a grace past its timeout is
// given up: abandon.
func (c *Consumer) call(name string, timeout time.Duration, fn func(consumerHandle) error) error {
	_, err := callValue(c, name, timeout, func(kc consumerHandle) (struct{}, error) { return struct{}{}, fn(kc) })
	return err
}

// callValue is call for a call that returns a value. The handle is read
// here, on the caller's goroutine under opMu: the call's goroutine, which
// may outlive it, never reads c.
func callValue[T any](c *Consumer, name string, timeout time.Duration, fn func(consumerHandle) (T, error)) (T, error) {
	kc := c.kc
	v, err := boundedValue(name, timeout, func() (T, error) { return fn(kc) })
	if hang, ok := err.(*HangError); ok {
		c.abandon(hang)
	}
	return v, err
}

// pollEvent is one bounded Poll of ms milliseconds.
func (c *Consumer) pollEvent(ms int) (kafka.Event, error) {
	return callValue(c, "Poll", time.Duration(ms)*time.Millisecond, func(kc consumerHandle) (kafka.Event, error) {
		return kc.Poll(ms), nil
	})
}

// abandon gives the handle up after hang: it is swapped for goneHandle, so
// nothing (this consumer, its copier, a crash's background close) touches
// it again, a late rebalance callback of the hung Poll is ignored, and the
// consumer counts as crashed: no op of its process follows, but the open
// op's completion and, from hangOp, the client-hang op. librdkafka's
// threads keep running behind the hung call: the handle is leaked.
func (c *Consumer) abandon(hang *HangError) {
	c.rebMu.Lock()
	c.gone = true
	c.rebMu.Unlock()
	c.kc = goneHandle{}
	c.ended.Store(true)
	if c.hang == nil {
		c.hang = hang
	}
}

// hangOp ends the process once a call hung, after the op that made it was
// completed (info: a hung call's effect is unknown), and returns the
// worker's error; nil when no call hung. It records the background commits
// reported before the hang, fences the member (the abandoned handle still
// heartbeats, and would hold its partitions until max.poll.interval.ms),
// records what an auto-committing consumer's abandoned handle may still
// commit (its stored offsets) as an info commit op, and last the
// client-hang op.
func (c *Consumer) hangOp() error {
	if c.hang == nil {
		return nil
	}
	if !c.hangDone {
		c.hangDone = true
		c.recordAutoCommits()
		if !c.fenced {
			c.fenced = true
			c.fence()
		}
		if c.opts.Config.Commit == CommitAuto && len(c.stored) > 0 {
			mops := []histories.Mop{{F: histories.MCommit, Offsets: maps.Clone(c.stored)}}
			c.ops.Complete(c.ops.Invoke(histories.FCommit, mops, nil), histories.Info, mops, errAbandonedCommit)
			c.stored = nil
		}
		c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Info,
			F: histories.FClientHang, Group: c.opts.Config.Group, Value: c.hang.Value()})
	}
	return &abandonedError{hang: c.hang}
}

// errAbandonedCommit is the error of the info commit op of an
// auto-committing consumer whose handle was abandoned.
var errAbandonedCommit = errors.New("client: consumer handle abandoned after a hung call; librdkafka may still commit these offsets")

// abandonedError is what the op whose call hung returns (later ones return
// ErrCrashed). It matches ErrCrashed, so that a worker loop replaces the
// consumer as after a crash, and ErrClientHang; it is not a *HangError,
// since its client-hang op is recorded already: a caller that records
// *HangErrors (Copier.abandon) must not record it again.
type abandonedError struct{ hang *HangError }

func (e *abandonedError) Error() string { return "consumer abandoned: " + e.hang.Error() }

// Is matches ErrCrashed and ErrClientHang.
func (e *abandonedError) Is(target error) bool {
	return target == ErrCrashed || target == ErrClientHang
}

// errHandleGone is what goneHandle's calls return.
var errHandleGone = errors.New("client: consumer handle abandoned after a hung call")

// goneHandle stands in for an abandoned handle: every call returns at once
// and touches nothing; Close is a no-op (the hung handle is leaked).
type goneHandle struct{}

func (goneHandle) Assign([]kafka.TopicPartition) error               { return errHandleGone }
func (goneHandle) SubscribeTopics([]string, kafka.RebalanceCb) error { return errHandleGone }
func (goneHandle) Poll(int) kafka.Event                              { return nil }
func (goneHandle) StoreMessage(*kafka.Message) ([]kafka.TopicPartition, error) {
	return nil, errHandleGone
}
func (goneHandle) Seek(kafka.TopicPartition, int) error { return errHandleGone }
func (goneHandle) CommitOffsets([]kafka.TopicPartition) ([]kafka.TopicPartition, error) {
	return nil, errHandleGone
}
func (goneHandle) Committed([]kafka.TopicPartition, int) ([]kafka.TopicPartition, error) {
	return nil, errHandleGone
}
func (goneHandle) QueryWatermarkOffsets(string, int32, int) (int64, int64, error) {
	return 0, 0, errHandleGone
}
func (goneHandle) Assignment() ([]kafka.TopicPartition, error) { return nil, errHandleGone }
func (goneHandle) GetConsumerGroupMetadata() (*kafka.ConsumerGroupMetadata, error) {
	return nil, errHandleGone
}
func (goneHandle) Close() error { return nil }
