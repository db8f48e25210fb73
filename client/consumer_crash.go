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
		if !c.crashed.Load() {
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
	case crashInCopy:
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
	case crashInCopy:
		return "in-copy"
	}
	return fmt.Sprintf("CrashPoint(%d)", int32(p))
}

// Crashed reports whether the consumer has crashed.
func (c *Consumer) Crashed() bool { return c.crashed.Load() }

// crashPoint reports whether a requested crash fires at point p.
func (c *Consumer) crashPoint(p CrashPoint) bool {
	at := CrashPoint(c.crashAt.Load())
	return at == p || at == CrashAnywhere
}

// crashIn crashes the worker with open (if any) still in progress: open
// completes as info with what it had fetched (fetched, not processed), a
// crash op follows, and the handle is torn down. Called with opMu held.
func (c *Consumer) crashIn(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		c.completePoll(open, histories.Info, mops, ErrCrashed)
	}
	c.recordAutoCommits()
	value := c.fence()
	if !value.Fenced {
		c.closeCommitDone(c.closeCommit(), errCloseCommit)
	} else {
		c.drainCommits()
	}
	c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Info, F: histories.FCrash,
		Group: c.opts.Config.Group, Value: value.json()})
	c.crashed.Store(true)
	// Close is the only way to stop librdkafka's threads. With the member
	// fenced, its leave and commits fail at the broker, so the group sees
	// a member that went silent, as after a real crash.
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
	return c.invoke(histories.FCommit, []histories.Mop{{F: histories.MCommit, Offsets: maps.Clone(c.stored)}}, nil)
}

// drainCommits records the background commits librdkafka has reported but
// no poll has read yet, so that none is lost with the handle. Records it
// returns meanwhile are dropped unstored: no worker sees them.
func (c *Consumer) drainCommits() {
	for range maxDrain {
		ev := c.kc.Poll(0)
		if ev == nil {
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
		c.complete(inv, histories.Info, inv.Mops, why)
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

// Close leaves cleanly (a clean shutdown, not a crash).
func (c *Consumer) Close() error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.crashed.Load() {
		return nil
	}
	c.crashed.Store(true) // no more ops from this process
	inv := c.closeCommit()
	err := c.kc.Close()
	c.closeCommitDone(inv, errCleanClose)
	return err
}
