package franz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Crash requests a crash at point, as client.Consumer.Crash does: a crash
// at CrashAnywhere of an idle consumer happens at once; otherwise when its
// poll reaches the point. A point its commit strategy never passes is
// refused (client.ErrUnreachableCrashPoint): with kgo's automatic commits
// that is after-commit too, since kgo commits a poll's records only once
// the next poll says they were processed. The crash severs the client's
// connections first: no leave, no commit on the way out, so the group sees
// a member that went silent, as it would after a SIGKILL.
func (c *Consumer) Crash(point client.CrashPoint) error {
	if !c.reaches(point) {
		return fmt.Errorf("%w: %v with commit %q (franz-go consumer)", client.ErrUnreachableCrashPoint, point, c.opts.Config.Commit)
	}
	c.crashAt.Store(int32(point))
	if point == client.CrashAnywhere && c.opMu.TryLock() {
		defer c.opMu.Unlock()
		if !c.ended.Load() {
			c.crashIn(nil, nil)
		}
	}
	return nil
}

// reaches reports whether a poll of this consumer passes point.
func (c *Consumer) reaches(point client.CrashPoint) bool {
	switch point {
	case client.CrashAnywhere:
		return true
	case client.CrashAfterCommit:
		return c.opts.Config.Commit == client.CommitBeforeProcessing
	case client.CrashBeforeCommit:
		return c.opts.Config.Commit == client.CommitAfterProcessing
	}
	return false
}

// crashPoint reports whether a requested crash fires at point p.
func (c *Consumer) crashPoint(p client.CrashPoint) bool {
	at := client.CrashPoint(c.crashAt.Load())
	return at == p || at == client.CrashAnywhere
}

// crashIn crashes the consumer with open (if any) still in progress: open
// completes as info with mops (fetched, not processed), the client is
// severed and a crash op follows. Called with opMu held.
func (c *Consumer) crashIn(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		c.completePoll(open, histories.Info, mops, client.ErrCrashed)
	}
	c.stop(histories.FCrash, json.RawMessage(`{"killed":true}`))
	c.crashed.Store(true)
	return client.ErrCrashed
}

// end ends the process after why, a call that ended it (its op is
// completed already): a hang (a client-hang op follows, as client.Consumer
// records one) or a client closed under it (a crash op). The error matches
// client.ErrCrashed, so the worker's slot replaces it, and for a hang
// client.ErrClientHang.
func (c *Consumer) end(why error) error {
	var hang *client.HangError
	if errors.As(why, &hang) {
		c.stop(histories.FClientHang, hang.Value())
	} else {
		b, _ := json.Marshal(map[string]string{"error": why.Error()})
		c.stop(histories.FCrash, b)
	}
	return fmt.Errorf("%w: %w", client.ErrCrashed, why)
}

// stop severs the client and closes it in the background (its leave and
// commits reach no broker), then records the commits the broker stored
// before, what an auto-committing consumer's automatic commit in flight
// may have stored unproven (an info commit op of its position), and last
// the process's final op f with value.
func (c *Consumer) stop(f string, value json.RawMessage) {
	c.ended.Store(true)
	c.link.sever()
	if cl := c.cl; cl != nil {
		go func() {
			// kgo's leave retries against a network that is gone:
			// bounded, after which Close finds the group left.
			ctx, cancel := context.WithTimeout(context.Background(), crashLeave)
			defer cancel()
			cl.AllowRebalance()
			cl.LeaveGroupContext(ctx)
			cl.Close()
		}()
	}
	c.recordAutoCommits()
	if pos := c.takePosition(); len(pos) > 0 {
		mops := []histories.Mop{{F: histories.MCommit, Offsets: pos}}
		c.ops.Complete(c.ops.Invoke(histories.FCommit, mops, nil), histories.Info, mops, errKilledCommit)
	}
	c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Info, F: f,
		Group: c.opts.Config.Group, Value: value})
}

// crashLeave bounds a crashed client's leave, which reaches nobody.
const crashLeave = 2 * time.Second

// errKilledCommit is the error of the info commit op of an auto-committing
// consumer that crashed.
var errKilledCommit = errors.New("franz consumer: crashed; an automatic commit of these offsets may have been in flight")
