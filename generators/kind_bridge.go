package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Joins two sides of the cluster through one node only, for the window:
//   needs a bridge and two sides, three brokers.
// * Footprint: cut links, by peer address.
// * Scheduled by hand; a draw rule takes no parameters.

// KindBridge joins two sides of the cluster through one node only.
const KindBridge = "bridge"

func bridgeKind() Kind {
	return Kind{Name: KindBridge, Capability: cluster.CapPartition,
		Doc:       "Joins two sides of the cluster through one node only, for the window.",
		need:      staticNeed(need{brokers: 3}),
		footprint: cutFootprint,
		draw:      drawNone,
	}
}
