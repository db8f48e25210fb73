package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Cuts only the replication traffic (the broker listener) between the
//   leader of key 0 and its followers for the window. Needs a leader and
//   a follower.
// * Footprint: cut links, by peer address.
// * Scheduled by hand; a draw rule takes no parameters.

// KindIsolateLeaderReplication cuts only the replication traffic (the
// broker listener) between the leader of key 0 and its followers; the
// controller quorum and the clients still reach it, so it stays leader
// and shrinks its ISR to itself.
const KindIsolateLeaderReplication = "isolate-leader-replication"

func isolateLeaderReplicationKind() Kind {
	return Kind{Name: KindIsolateLeaderReplication, Capability: cluster.CapPartition,
		Doc: "Cuts only the replication traffic (the broker listener) between the leader of key 0 and its followers for the window; " +
			"the controller quorum and the clients still reach it, so it stays leader and shrinks its ISR to itself.",
		need:      staticNeed(need{brokers: 2}),
		footprint: cutFootprint,
		draw:      drawNone,
	}
}
