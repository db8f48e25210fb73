package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Cuts the leader of key 0 from its followers for the window; the
//   clients still reach it. Needs a leader and a follower.
// * Footprint: cut links, by peer address.
// * Scheduled by hand; a draw rule takes no parameters.

// KindIsolateLeader cuts the leader of key 0 from its followers; the
// clients still reach it.
const KindIsolateLeader = "isolate-leader"

func isolateLeaderKind() Kind {
	return Kind{Name: KindIsolateLeader, Capability: cluster.CapPartition,
		Doc:       "Cuts the leader of key 0 from its followers for the window; the clients still reach it.",
		need:      staticNeed(need{brokers: 2}),
		footprint: cutFootprint,
		draw:      drawNone,
	}
}
