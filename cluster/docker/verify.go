package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A fault hook returns nil only once its effect is checked (see
// cluster.EffectVerifier); these are the checks.

var (
	_ cluster.EffectVerifier = (*Provider)(nil)
	_ cluster.HealthChecker  = (*Provider)(nil)
)

// verifyTimeout bounds a check that an engine call or a rule took effect:
// the engine and the kernel act within milliseconds; more would only delay
// reporting a fault that did not fire.
const verifyTimeout = 5 * time.Second

// registerTimeout bounds a restarted broker's return to the cluster
// metadata after it listens (metadata log replay, unfencing).
const registerTimeout = 90 * time.Second

// Verified says what each hook checks before it returns nil.
func (p *Provider) Verified(e cluster.Effect) string {
	switch e {
	case cluster.EffectKill:
		return "engine reports the container not running"
	case cluster.EffectStop:
		return "engine reports the container stopped"
	case cluster.EffectRestart:
		return "listener accepts connections; " + realbroker.Registered
	case cluster.EffectPause:
		return "engine reports the container paused (cgroup frozen)"
	case cluster.EffectResume:
		return "engine reports the container running, not paused"
	case cluster.EffectCut, cluster.EffectHeal, cluster.EffectPacketLoss:
		return realbroker.TableListed
	case cluster.EffectSlowLink:
		return realbroker.QdiscListed
	}
	return ""
}

// Healthy implements cluster.HealthChecker (realbroker.Admin.Healthy).
func (p *Provider) Healthy(ctx context.Context) error {
	if p.admin == nil {
		return errors.New("cluster/docker: not started")
	}
	if err := p.admin.Healthy(ctx, p.ids()); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	return nil
}

// HealthChecked says what Healthy checks.
func (p *Provider) HealthChecked() string { return realbroker.HealthChecked }

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

// waitRegistered waits until restarted node n is back in the cluster
// metadata and answers.
func (p *Provider) waitRegistered(ctx context.Context, n *node) error {
	exited := func() error {
		if why := p.exited(ctx, n); why != "" {
			return fmt.Errorf("node %d %s after restart; log tail:\n%s", n.id, why, p.logTail(ctx, n, 30))
		}
		return nil
	}
	if err := p.admin.WaitRegistered(ctx, n.id, registerTimeout, exited); err != nil {
		return fmt.Errorf("cluster/docker: node %d: %w", n.id, err)
	}
	return nil
}

// checkNet lists node n's kafkachaos table (in the namespace of pid) and
// compares it with the cuts and loss asked of it.
func checkNet(ctx context.Context, n *node, pid int, blocked []string, loss int) error {
	out, err := inNetns(ctx, pid, "", "nft", "list", "table", "inet", "kafkachaos")
	if err == nil {
		err = errors.Join(realbroker.CheckBlocked(out, blocked), realbroker.CheckLoss(out, loss))
	}
	if err != nil {
		return fmt.Errorf("node %d: rules read back do not match: %w", n.id, err)
	}
	return nil
}

// checkQdiscs reads back the root qdisc of both ends of a container's link.
func checkQdiscs(ctx context.Context, pid int, host string, bitsPerSecond int64) error {
	for _, end := range []struct {
		pid int
		dev string
	}{{pid, "eth0"}, {hostNetns, host}} {
		out, err := inNetns(ctx, end.pid, "", "tc", "-j", "qdisc", "show", "dev", end.dev)
		if err == nil {
			err = realbroker.CheckTBF(out, bitsPerSecond)
		}
		if err != nil {
			return fmt.Errorf("reading %s back: %w", end.dev, err)
		}
	}
	return nil
}
