package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A fault hook returns nil only once its effect is checked (see
// cluster.EffectVerifier); these are the checks of the JVM's state in /proc
// and of the rules in a namespace.

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
	if err := realbroker.CheckTable(ctx, n.runIn, check); err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return nil
}

// jvmChecks says how the JVM's state is checked: signals act at once, and
// /proc shows their effect.
func jvmChecks() realbroker.ProcessChecks {
	return realbroker.ProcessChecks{Kill: "JVM reaped after SIGKILL", Stop: "JVM exited after SIGTERM",
		Pause: "every thread of the JVM in state T (/proc/<pid>/task/*/stat)", Resume: "no thread of the JVM in state T (/proc/<pid>/task/*/stat)"}
}
