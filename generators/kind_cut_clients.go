package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Cuts the clients from Params.Target's brokers for the window.
// * Footprint: cut links, by peer address.
// * Scheduled by hand; a draw rule picks one broker or the leader.

// KindCutClients cuts the clients from Params.Target.
const KindCutClients = "cut-clients"

func cutClientsKind() Kind {
	return Kind{Name: KindCutClients, Capability: cluster.CapPartition,
		Doc:       "Cuts the clients from Params.Target's brokers for the window.",
		footprint: cutFootprint,
		draw:      pickTarget("one", "leader"),
	}
}
