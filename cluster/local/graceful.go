package local

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// cleanStopTimeout bounds a controlled shutdown; a broker that has not
// exited by then is SIGKILLed, and the error says so, because a clean
// restart that was really a kill would mislabel the run's fault.
const cleanStopTimeout = 45 * time.Second

// StopNode shuts node down with SIGTERM (Kafka's controlled shutdown) and
// waits for the JVM to exit. A paused node is resumed first: a stopped
// process would not act on SIGTERM. Stopping a node that is down is not an
// error.
func (p *Provider) StopNode(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	return n.stopClean(ctx)
}

// stopClean is StopNode on n.
func (n *node) stopClean(ctx context.Context) error {
	n.mu.Lock()
	if !n.running() {
		n.mu.Unlock()
		return nil
	}
	done, proc, paused := n.done, n.cmd.Process, n.paused
	n.mu.Unlock()
	if paused {
		if err := n.signal(syscall.SIGCONT); err != nil {
			return err
		}
	}
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("cluster/local: node %d: SIGTERM: %w", n.id, err)
	}
	began := time.Now()
	select {
	case <-done:
		return nil
	case <-time.After(cleanStopTimeout):
		kerr := n.kill(context.WithoutCancel(ctx))
		return fmt.Errorf("cluster/local: node %d did not shut down cleanly within %s (SIGKILLed: %v)", n.id, cleanStopTimeout, kerr)
	case <-ctx.Done():
		kerr := n.kill(context.WithoutCancel(ctx))
		return fmt.Errorf("cluster/local: node %d did not shut down cleanly before its step's deadline, %s after SIGTERM (SIGKILLed: %v): %w",
			n.id, time.Since(began).Round(time.Millisecond), kerr, ctx.Err())
	}
}

// StartNode starts a stopped node again; it is Restart under the name the
// NodeStopper hook uses.
func (p *Provider) StartNode(ctx context.Context, id int32) error { return p.Restart(ctx, id) }

// SlowLinkMechanism is "tbf": SlowLink caps bandwidth with a token bucket
// filter, since this kernel has no netem to add latency.
func (p *Provider) SlowLinkMechanism() string { return "tbf" }
