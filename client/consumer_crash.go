package client

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Crash requests a crash at point. A crash at CrashAnywhere of an idle
// consumer happens at once; otherwise the worker crashes when its poll
// reaches the point (a point the strategy never reaches never fires: see
// CrashPoint). After the crash the process id is dead.
func (c *Consumer) Crash(point CrashPoint) {
	c.crashAt.CompareAndSwap(int32(noCrash), int32(point))
	if point == CrashAnywhere && c.opMu.TryLock() {
		defer c.opMu.Unlock()
		if !c.crashed.Load() {
			c.crashIn(nil, nil)
		}
	}
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
	var value crashValue
	if c.opts.Config.Group != "" && c.opts.Fencer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.opts.Fencer.FenceClient(ctx, c.opts.Config.Group, c.clientID())
		cancel()
		value.Fenced = err == nil
		if err != nil {
			value.FenceError = err.Error()
		}
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
	return c.kc.Close()
}
