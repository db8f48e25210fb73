package java

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Crash requests a crash at point, as client.Consumer.Crash does: a crash
// at CrashAnywhere of an idle consumer happens at once; otherwise when its
// poll reaches the point. A point its commit strategy never passes is
// refused (client.ErrUnreachableCrashPoint). The crash is a SIGKILL of the
// JVM: no close, no leave, no commit on the way out, so the group sees a
// member that went silent, with no fencing needed.
func (c *Consumer) Crash(point client.CrashPoint) error {
	if !c.reaches(point) {
		return fmt.Errorf("%w: %v with commit %q (java consumer)", client.ErrUnreachableCrashPoint, point, c.opts.Config.Commit)
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
	commit := c.opts.Config.Commit
	switch point {
	case client.CrashAnywhere:
		return true
	case client.CrashAfterCommit:
		return commit == client.CommitBeforeProcessing || commit == client.CommitAuto
	case client.CrashBeforeCommit:
		return commit == client.CommitAfterProcessing
	}
	return false
}

// crashPoint reports whether a requested crash fires at point p.
func (c *Consumer) crashPoint(p client.CrashPoint) bool {
	at := client.CrashPoint(c.crashAt.Load())
	return at == p || at == client.CrashAnywhere
}

// crashIn crashes the consumer with open (if any) still in progress: open
// completes as info with mops (fetched, not processed), the JVM is killed
// and a crash op follows. Called with opMu held.
func (c *Consumer) crashIn(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		c.completePoll(open, histories.Info, mops, client.ErrCrashed)
	}
	c.stop(histories.FCrash, crashJSON(killed()))
	c.crashed.Store(true)
	return client.ErrCrashed
}

// end ends the process after why, a request that ended it (its op is
// completed already): the JVM exited unasked (a crash op follows) or hung
// (killed; a client-hang op follows, as client.Consumer records one). The
// error matches client.ErrCrashed, so the worker's slot replaces it, and
// for a hang client.ErrClientHang.
func (c *Consumer) end(why error) error {
	var hang *client.HangError
	if errors.As(why, &hang) {
		c.stop(histories.FClientHang, hang.Value())
	} else {
		c.stop(histories.FCrash, crashJSON(crashValue{Exit: fmt.Sprint(c.exit)}))
	}
	return fmt.Errorf("%w: %w", client.ErrCrashed, why)
}

// stop kills the JVM and, once it is reaped, records the commits the
// client proved before it died, what an auto-committing consumer's last
// automatic commit may have stored unproven (an info commit op of its
// position), and last the process's final op f with value.
func (c *Consumer) stop(f string, value json.RawMessage) {
	c.ended.Store(true)
	c.jvm.kill()
	<-c.exited
	c.recordAutoCommits()
	if c.opts.Config.Commit == client.CommitAuto && len(c.stored) > 0 {
		mops := []histories.Mop{{F: histories.MCommit, Offsets: c.stored}}
		c.ops.Complete(c.ops.Invoke(histories.FCommit, mops, nil), histories.Info, mops, errKilledCommit)
		c.stored = nil
	}
	c.opts.Recorder.Record(&histories.Op{Process: c.opts.Process, Type: histories.Info, F: f,
		Group: c.opts.Config.Group, Value: value})
}

// errKilledCommit is the error of the info commit op of an auto-committing
// consumer whose JVM was killed or died.
var errKilledCommit = errors.New("java: the consumer's JVM ended; an automatic commit of these offsets may have been in flight")

// crashValue is a Java consumer's crash op value: killed by the harness
// (a SIGKILL: the group sees a member gone silent), or the JVM's exit when
// it ended unasked.
type crashValue struct {
	Killed bool   `json:"killed,omitempty"`
	Signal string `json:"signal,omitempty"`
	Exit   string `json:"jvm-exit,omitempty"`
}

// killed is the crash op value of a JVM the harness killed.
func killed() crashValue { return crashValue{Killed: true, Signal: "SIGKILL"} }

// crashJSON marshals v; a bool and a string cannot fail to marshal.
func crashJSON(v crashValue) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
