package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// verifyTimeout bounds a check that a signal or a rule took effect: the
// kernel acts within milliseconds, so a second of slack on loaded cores is
// plenty, and more would only delay reporting a fault that did not fire.
const verifyTimeout = 5 * time.Second

// registerTimeout bounds a restarted broker's return to the cluster
// metadata after it listens: it replays the metadata log and is unfenced
// by the controller, which has taken tens of seconds on two loaded cores.
const registerTimeout = 90 * time.Second

// Verified says what each hook checks before it returns nil.
func (p *Provider) Verified(e cluster.Effect) string {
	switch e {
	case cluster.EffectKill:
		return "JVM reaped after SIGKILL"
	case cluster.EffectStop:
		return "JVM exited after SIGTERM"
	case cluster.EffectRestart:
		return "listener accepts connections; " + realbroker.Registered
	case cluster.EffectPause:
		return "every thread of the JVM in state T (/proc/<pid>/task/*/stat)"
	case cluster.EffectResume:
		return "no thread of the JVM in state T (/proc/<pid>/task/*/stat)"
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
		return errNotStarted
	}
	if err := p.admin.Healthy(ctx, p.ids()); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	return nil
}

// HealthChecked says what Healthy checks.
func (p *Provider) HealthChecked() string { return realbroker.HealthChecked }

var errNotStarted = fmt.Errorf("cluster/local: not started")

// waitStopped waits until every thread of process pid is stopped (want)
// or none is (!want), at most limit.
func waitStopped(ctx context.Context, pid int, want bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		stopped, running, err := threadStates(pid)
		if err != nil {
			return err
		}
		if (want && running == 0 && stopped > 0) || (!want && stopped == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("process %d: %d threads stopped, %d not, after %s (want all %s)",
				pid, stopped, running, limit, map[bool]string{true: "stopped", false: "running"}[want])
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// threadStates counts the threads of pid in state T (stopped by a signal;
// t is stopped under a tracer) and the others.
func threadStates(pid int) (stopped, other int, err error) {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(stats) == 0 {
		return 0, 0, fmt.Errorf("process %d: no threads in /proc (%v)", pid, err)
	}
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended meanwhile
		}
		// The state follows the command name, which may itself hold ") ".
		i := strings.LastIndex(string(b), ") ")
		if i < 0 || i+2 >= len(b) {
			return 0, 0, fmt.Errorf("%s: unreadable stat %q", path, b)
		}
		if s := b[i+2]; s == 'T' || s == 't' {
			stopped++
		} else {
			other++
		}
	}
	return stopped, other, nil
}

// checkTable lists node n's kafkachaos table and applies check to it.
func checkTable(ctx context.Context, n *node, check func(listing string) error) error {
	out, err := runIn(ctx, n.ns, "", "nft", "list", "table", "inet", "kafkachaos")
	if err != nil {
		return fmt.Errorf("node %d: reading rules back: %w", n.id, err)
	}
	if err := check(out); err != nil {
		return fmt.Errorf("node %d: rules read back do not match: %w", n.id, err)
	}
	return nil
}
