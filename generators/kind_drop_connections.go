package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Closes a client's connection instead of handling its request (the
//   embedded cluster's kfake); drawn for what it does to sends.
// * Takes nothing out: no footprint, no clash, nothing to heal.
// * Drawn with a probability of 10-100%; --nemesis takes
//   --fault-probability.

// KindDrop closes the client's connection instead of handling a request.
const KindDrop = "drop-connections"

func dropKind() Kind {
	return Kind{Name: KindDrop, Capability: cluster.CapRequestFaults, Drawn: true,
		Doc:      "Closes the client's connection instead of handling a request (Params.Probability of them; 0 is every one).",
		need:     staticNeed(need{senders: true}),
		defaults: probabilityFlag,
		draw:     drawProbability,
	}
}
