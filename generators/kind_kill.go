package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Takes Params.Nodes (embedded) or Params.Target's brokers (real) down
//   for the window and brings them back: a majority must be up when it
//   starts, counting every other fault that holds brokers down then.
// * Footprint: the brokers it takes down.
// * Drawn without parameters: one broker, chosen by the seed.

// KindKill takes nodes down for the window and brings them back.
const KindKill = "kill"

func killKind() Kind {
	return Kind{Name: KindKill, Capability: cluster.CapKill, Drawn: true,
		Doc: "Takes nodes down for the window (SIGKILL on real brokers) and brings them back at its end: " +
			"Params.Nodes, or Params.Target's brokers on real brokers, or one chosen by the seed.",
		need:      staticNeed(need{takesDown: true}),
		footprint: downFootprint,
		draw:      drawNone,
	}
}
