package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Shuts Params.Target's brokers down cleanly (SIGTERM) for the window
//   and starts them again: a majority must be up when it starts.
// * Footprint: the brokers it stops.
// * Scheduled by hand; a draw rule picks one broker, the leader or the
//   controller.

// KindCleanRestart shuts Params.Target down with SIGTERM for the window.
const KindCleanRestart = "clean-restart"

func cleanRestartKind() Kind {
	return Kind{Name: KindCleanRestart, Capability: cluster.CapKill,
		Doc:       "Shuts Params.Target's brokers down cleanly (SIGTERM) for the window and starts them again at its end.",
		need:      staticNeed(need{takesDown: true}),
		footprint: downFootprint,
		draw:      pickTarget("one", "leader", "controller"),
	}
}
