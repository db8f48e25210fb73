package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Instantaneous: restarts every broker cleanly in turn, waiting
//   Params.Delay after each; acts on any cluster.
// * Footprint: one broker down at a time.
// * Scheduled by hand; a draw rule restarts once, without a wait.

// KindRollingRestart restarts every broker cleanly in turn, waiting
// Params.Delay after each.
const KindRollingRestart = "rolling-restart"

func rollingRestartKind() Kind {
	return Kind{Name: KindRollingRestart, Capability: cluster.CapKill, Instant: true,
		Doc:       "Restarts every broker cleanly in turn, waiting Params.Delay after each, at Start and then every Params.Every.",
		footprint: func(Fault, Scenario) Footprint { return Footprint{Down: 1, Target: "one"} },
		draw:      drawNone,
	}
}
