package proc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
	"github.com/kafkachaos/kafkachaos/workers"
)

// Event is what a fault did to one worker process, for its nemesis op.
type Event struct {
	Position string `json:"position"`
	PID      int    `json:"pid"`
	Signal   string `json:"signal,omitempty"`
	// Processes are the history's processes of the worker process;
	// Ended those its death ended (their crash ops).
	Processes []int64 `json:"processes,omitempty"`
	Ended     []int64 `json:"ended,omitempty"`
	Effect    string  `json:"effect"`
}

// signalBound bounds the wait for a signal's effect in /proc.
const signalBound = 5 * time.Second

// Kill ends a worker process of one of roles (any when none) with
// SIGKILL: no close, no flush, no final commit. It returns once the
// process is reaped and its end recorded: its open ops as info, a crash op
// for each of its processes; a successor then takes its position.
// workers.ErrNothingToCrash when no worker process of those roles runs.
func (p *Pool) Kill(ctx context.Context, roles ...string) (Event, error) {
	ch := p.pick(roles, func(*child) bool { return true })
	if ch == nil {
		return Event{}, workers.ErrNothingToCrash
	}
	ch.kill("was killed (SIGKILL)")
	select {
	case <-ch.exited:
	case <-time.After(killBound):
		return Event{}, fmt.Errorf("worker process %d (%s): not reaped %v after SIGKILL", ch.pid, ch.at, killBound)
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
	return Event{Position: ch.at.String(), PID: ch.pid, Signal: "SIGKILL", Processes: ch.processes(), Ended: ch.ended,
		Effect: "process reaped; its open ops completed as info, its processes crashed"}, nil
}

// Paused is a worker process a Pause stopped.
type Paused struct {
	ch *child
	Event
}

// Pause stops a worker process of role (any when "") that no pause holds
// with SIGSTOP, every thread of it: librdkafka's heartbeats and timers
// too. It returns once /proc shows every thread stopped; one /proc does
// not confirm is let go on (SIGCONT) and the pause is an error: it is not
// known to have held.
func (p *Pool) Pause(ctx context.Context, role string) (*Paused, error) {
	var roles []string
	if role != "" {
		roles = []string{role}
	}
	ch := p.claim(roles)
	if ch == nil {
		return nil, workers.ErrNothingToCrash
	}
	ps := &Paused{ch: ch, Event: Event{Position: ch.at.String(), PID: ch.pid, Signal: "SIGSTOP", Processes: ch.processes(),
		Effect: "every thread in state T (/proc/<pid>/task/*/stat)"}}
	if err := ch.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		ch.setPaused(false)
		return nil, fmt.Errorf("worker process %d (%s): SIGSTOP: %w", ch.pid, ch.at, err)
	}
	if err := p.waitPaused(ctx, ch.pid, true, signalBound); err != nil {
		err = fmt.Errorf("worker process %d (%s): SIGSTOP sent but not in effect: %w", ch.pid, ch.at, err)
		if rerr := ps.Resume(context.Background()); rerr != nil {
			p.fail(fmt.Errorf("%w; let go on: %w", err, rerr))
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	return ps, nil
}

// claim picks a worker process of roles that no pause holds, and marks
// it paused; nil when there is none.
func (p *Pool) claim(roles []string) *child {
	for {
		ch := p.pick(roles, func(c *child) bool { return !c.isPaused() })
		if ch == nil || ch.setPaused(true) {
			return ch // else another pause took it meanwhile
		}
	}
}

// Resume lets the paused worker process go on (SIGCONT) and returns once
// no thread of it is stopped; one that died meanwhile (killed) needs
// nothing.
func (ps *Paused) Resume(ctx context.Context) error {
	ch := ps.ch
	defer ch.setPaused(false)
	if err := ch.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		if ch.gone() {
			return nil
		}
		return fmt.Errorf("worker process %d (%s): SIGCONT: %w", ch.pid, ch.at, err)
	}
	if err := procstat.WaitStopped(ctx, ch.pid, false, signalBound); err != nil && !ch.gone() {
		return fmt.Errorf("worker process %d (%s): SIGCONT sent but not in effect: %w", ch.pid, ch.at, err)
	}
	return nil
}

// Churn makes a consumer's worker process stop cleanly (its member leaves
// the group) and returns once it has; a successor joins in its place.
func (p *Pool) Churn(ctx context.Context) (Event, error) {
	ch := p.pick([]string{"consumer"}, func(c *child) bool { return !c.isPaused() })
	if ch == nil {
		return Event{}, workers.ErrNothingToCrash
	}
	ch.stop()
	bound := workers.StopBound()
	select {
	case <-ch.exited:
	case <-time.After(bound):
		return Event{}, fmt.Errorf("worker process %d (%s): still running %v after it was told to stop", ch.pid, ch.at, bound)
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
	return Event{Position: ch.at.String(), PID: ch.pid, Processes: ch.processes(), Effect: "stopped cleanly: its member left the group"}, nil
}

// setPaused marks the worker process paused (or not), reporting whether
// that changed anything: a paused one is not paused twice.
func (ch *child) setPaused(v bool) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.paused == v {
		return false
	}
	ch.paused = v
	return true
}

func (ch *child) isPaused() bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.paused
}

// gone reports whether the worker process has exited and been reaped.
func (ch *child) gone() bool {
	select {
	case <-ch.exited:
		return true
	default:
		return false
	}
}

// processes are the history's processes the worker process has used.
func (ch *child) processes() []int64 {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return slices.Clone(ch.seen)
}
