package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Freezes Params.Nodes or Params.Target's brokers for the window
//   (SIGSTOP on real brokers): they count as down for the majority rule.
// * Footprint: the brokers it freezes.
// * Drawn on real brokers without parameters: one broker.

// KindPause freezes nodes for the window.
const KindPause = "pause"

func pauseKind() Kind {
	return Kind{Name: KindPause, Capability: cluster.CapPause, Drawn: true,
		Doc: "Freezes nodes for the window (SIGSTOP on real brokers; their connections stay open) and lets them go on at its end: " +
			"Params.Nodes, or Params.Target's brokers, or one chosen by the seed.",
		need:      staticNeed(need{takesDown: true}),
		footprint: downFootprint,
		draw:      drawNone,
	}
}
