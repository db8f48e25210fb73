package local

import (
	"context"
	"fmt"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A fault hook returns nil only once its effect is checked (see
// cluster.EffectVerifier); these are the checks of the JVM's state in /proc
// and of the rules in a namespace.

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
