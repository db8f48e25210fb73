package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// pauseClient stops a worker process for its window (SIGSTOP) and lets it
// go on at its end (SIGCONT), each checked in /proc.
type pauseClient struct {
	pool *proc.Pool
	role string

	mu     sync.Mutex
	paused *proc.Paused
	last   any
}

func (p *pauseClient) Name() string { return generators.KindPauseClient }

func (p *pauseClient) Detail() any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

func (p *pauseClient) Start(ctx context.Context) error {
	paused, err := p.pool.Pause(ctx, p.role)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotFired, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused, p.last = paused, paused.Event
	return nil
}

func (p *pauseClient) Stop(ctx context.Context) error {
	p.mu.Lock()
	paused := p.paused
	p.paused = nil
	p.mu.Unlock()
	if paused == nil {
		return nil
	}
	if err := paused.Resume(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = map[string]any{"position": paused.Position, "pid": paused.PID, "signal": "SIGCONT",
		"effect": "no thread in state T (/proc/<pid>/task/*/stat)"}
	return nil
}
