package java

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// signalBound bounds the wait for a SIGSTOP's or SIGCONT's effect in /proc.
const signalBound = 5 * time.Second

// errPaused is a pause of a JVM a pause holds already.
var errPaused = errors.New("java: the client's JVM is paused already")

// PID is the JVM's process id.
func (j *jvm) PID() int { return j.cmd.Process.Pid }

// Paused reports whether a pause holds the JVM.
func (j *jvm) Paused() bool {
	j.pauseMu.Lock()
	defer j.pauseMu.Unlock()
	return !j.pausedAt.IsZero()
}

// Pause stops the JVM whole (SIGSTOP): its client's network thread,
// heartbeats and timers too, as a stopped service's would be. It returns
// once /proc shows every thread stopped; a JVM /proc does not confirm is
// let go on (SIGCONT) and the pause is an error, as it is not known to
// have held. The requests waiting on the JVM leave the stopped time out
// of their bounds: a stopped JVM is not a hung client.
func (j *jvm) Pause(ctx context.Context) error {
	j.pauseMu.Lock()
	if !j.pausedAt.IsZero() {
		j.pauseMu.Unlock()
		return errPaused
	}
	j.pausedAt = time.Now() // before the signal: no bound may fire on the stop
	j.pauseMu.Unlock()
	if err := j.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		j.endPause()
		return fmt.Errorf("java client JVM %d: SIGSTOP: %w", j.PID(), err)
	}
	if err := procstat.WaitStopped(ctx, j.PID(), true, signalBound); err != nil {
		err = fmt.Errorf("java client JVM %d: SIGSTOP sent but not in effect: %w", j.PID(), err)
		return errors.Join(err, j.Resume(context.Background()))
	}
	return nil
}

// Resume lets the paused JVM go on (SIGCONT) and returns once no thread
// of it is stopped; a JVM that died meanwhile (killed) needs nothing.
func (j *jvm) Resume(ctx context.Context) error {
	defer j.endPause()
	if err := j.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return nil
		}
		return fmt.Errorf("java client JVM %d: SIGCONT: %w", j.PID(), err)
	}
	err := procstat.WaitStopped(ctx, j.PID(), false, signalBound)
	if err != nil && procstat.StartTime(j.PID()) != "" {
		return fmt.Errorf("java client JVM %d: SIGCONT sent but not in effect: %w", j.PID(), err)
	}
	return nil
}

// endPause adds the pause under way to the stopped total.
func (j *jvm) endPause() {
	j.pauseMu.Lock()
	defer j.pauseMu.Unlock()
	if !j.pausedAt.IsZero() {
		j.paused += time.Since(j.pausedAt)
		j.pausedAt = time.Time{}
	}
}

// stopped is how long pauses have held the JVM, the one under way too.
func (j *jvm) stopped() time.Duration {
	j.pauseMu.Lock()
	defer j.pauseMu.Unlock()
	d := j.paused
	if !j.pausedAt.IsZero() {
		d += time.Since(j.pausedAt)
	}
	return d
}
