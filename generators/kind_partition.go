package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Cuts the network between nodes for the window: the smaller half of
//   the brokers against the larger (one against two of three brokers), or
//   Params.Target against the rest (two).
// * Footprint: cut links. Cuts by peer address, so refused where brokers
//   replicate through the harness's proxies (replicationAvailable).
// * Drawn without parameters.

// KindPartition cuts the network between nodes for the window.
const KindPartition = "partition"

func partitionKind() Kind {
	return Kind{Name: KindPartition, Capability: cluster.CapPartition, Drawn: true,
		Doc: "Cuts the network between nodes for the window: the smaller half of the brokers against the larger, " +
			"or Params.Target's brokers against the rest.",
		need: func(f Fault, _ Scenario) need {
			if f.Params.Target != "" {
				return need{brokers: 2} // the target against the rest
			}
			return need{brokers: 3}
		},
		footprint: cutFootprint,
		draw:      drawNone,
	}
}
