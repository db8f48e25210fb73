package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A fault hook returns nil only once its effect is checked (see
// cluster.EffectVerifier); these are the engine's checks.

// killTimeout bounds the engine's teardown of a SIGKILLed container, which
// outlasts its process by the time the engine takes to reap and record it.
const killTimeout = 30 * time.Second

// waitState polls the engine until node n is running (or not) and paused
// (or not) as wanted, at most limit.
func (p *Provider) waitState(ctx context.Context, n *node, running, paused bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		r, ps, _, err := p.state(ctx, n)
		if err != nil {
			return err
		}
		if r == running && ps == paused {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster/docker: node %d: engine reports running=%t paused=%t after %s, want running=%t paused=%t",
				n.id, r, ps, limit, running, paused)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// checkNet lists node n's kafkachaos table (in the namespace of pid) and
// compares it with the cuts and loss asked of it.
func checkNet(ctx context.Context, n *node, pid int, blocked []string, loss int) error {
	err := realbroker.CheckTable(ctx, netnsRun(pid), func(l string) error {
		return errors.Join(realbroker.CheckBlocked(l, blocked), realbroker.CheckLoss(l, loss))
	})
	if err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return nil
}

// engineChecks says how a container's state is checked: by the engine's
// own view of it.
func engineChecks() realbroker.ProcessChecks {
	return realbroker.ProcessChecks{Kill: "engine reports the container not running", Stop: "engine reports the container stopped",
		Pause: "engine reports the container paused (cgroup frozen)", Resume: "engine reports the container running, not paused"}
}
