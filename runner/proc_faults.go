package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/workers"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// pauseClient stops a client's process for its window (SIGSTOP) and lets
// it go on at its end (SIGCONT), each checked in /proc: a worker process,
// or the JVM of a java client running in the harness's process.
type pauseClient struct {
	pause func(ctx context.Context) (detail any, resume func(context.Context) (any, error), err error)

	mu     sync.Mutex
	resume func(context.Context) (any, error)
	last   any
}

func (p *pauseClient) Name() string { return generators.KindPauseClient }

func (p *pauseClient) Detail() any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

func (p *pauseClient) Start(ctx context.Context) error {
	detail, resume, err := p.pause(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotFired, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resume, p.last = resume, detail
	return nil
}

func (p *pauseClient) Stop(ctx context.Context) error {
	p.mu.Lock()
	resume := p.resume
	p.resume = nil
	p.mu.Unlock()
	if resume == nil {
		return nil
	}
	detail, err := resume(ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = detail
	return nil
}

// pauseProcess pauses a worker process of role (any when "").
func pauseProcess(pool *proc.Pool, role string) *pauseClient {
	return &pauseClient{pause: func(ctx context.Context) (any, func(context.Context) (any, error), error) {
		paused, err := pool.Pause(ctx, role)
		if err != nil {
			return nil, nil, err
		}
		return paused.Event, func(ctx context.Context) (any, error) {
			return map[string]any{"position": paused.Position, "pid": paused.PID, "signal": "SIGCONT",
				"effect": "no thread in state T (/proc/<pid>/task/*/stat)"}, paused.Resume(ctx)
		}, nil
	}}
}

// pausable is a client under test in a process of its own, the java
// client's JVM, which a pause stops whole.
type pausable interface {
	PID() int
	Paused() bool
	Pause(ctx context.Context) error
	Resume(ctx context.Context) error
}

// pausableClient is a pausable client of the schedule's and what names it.
type pausableClient struct {
	p         pausable
	role      string
	processes []int64
}

// pauseJVM pauses the JVM of a java client of role (any when "") that no
// pause holds.
func (sc *schedule) pauseJVM(role string) *pauseClient {
	return &pauseClient{pause: func(ctx context.Context) (any, func(context.Context) (any, error), error) {
		free := sc.pausable(role)
		if len(free) == 0 {
			return nil, nil, workers.ErrNothingToCrash
		}
		c := free[sc.intN(len(free))]
		if err := c.p.Pause(ctx); err != nil {
			return nil, nil, err
		}
		detail := map[string]any{"role": c.role, "pid": c.p.PID(), "processes": c.processes, "signal": "SIGSTOP",
			"effect": "every thread in state T (/proc/<pid>/task/*/stat)"}
		return detail, func(ctx context.Context) (any, error) {
			return map[string]any{"role": c.role, "pid": c.p.PID(), "signal": "SIGCONT",
				"effect": "no thread in state T (/proc/<pid>/task/*/stat)"}, c.p.Resume(ctx)
		}, nil
	}}
}

// pausable are the running clients of role (any when "") that run in a
// process of their own and no pause holds.
func (sc *schedule) pausable(role string) []pausableClient {
	var out []pausableClient
	add := func(r string, c any, processes ...int64) {
		if p, ok := c.(pausable); ok && (role == "" || role == r) && !p.Paused() {
			out = append(out, pausableClient{p: p, role: r, processes: processes})
		}
	}
	for _, s := range sc.producers {
		if c := s.Current(); c != nil {
			add(generators.RoleProducer, c, c.Processes()...)
		}
	}
	for _, s := range sc.consumers {
		if c := s.Current(); c != nil && !c.Ended() {
			add(generators.RoleConsumer, c, c.Process())
		}
	}
	for _, s := range sc.copiers {
		if c := s.Current(); c != nil && !c.Ended() {
			add(generators.RoleCopier, c, c.Process())
		}
	}
	for _, s := range sc.txnQueues {
		if c := s.Current(); c != nil && !c.Ended() {
			add(generators.RoleTxnQueue, c, c.Process())
		}
	}
	return out
}
