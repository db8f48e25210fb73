package generators

import (
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Takes one broker (Params.Target one, leader or controller) out of the
//   cluster for the window: a clean stop and UnregisterBroker; at its end
//   the broker starts again and registers anew. A majority must be up when
//   it starts, and its clean stop needs time before the run ends
//   (cleanStop). Kafka 4.0+.
// * Footprint: a broker down and out of the membership. It must not
//   overlap another removal, a reassign with no spare broker left, a voter
//   out, a moved clock, nor another broker down, cut off or on a failing
//   disk (its clean stop and return wait on them); a draw keeps it apart
//   from added brokers.
// * Drawn with a target of one, the leader or the controller.

// KindRemoveBroker takes Params.Target's broker (one, the leader or the
// controller; one by default) out of the cluster for the window: a clean
// stop, then UnregisterBroker; at the window's end it starts again and
// registers anew. Kafka 4.0+ (only its DescribeCluster can show the broker
// gone rather than fenced).
const KindRemoveBroker = "remove-broker"

// cleanStop is how long a combined node's controlled shutdown takes
// before the broker can be unregistered: leaderships moved, then the
// controller's graceful resignation (about 1.7 s on cluster/local with
// two loaded cores), with margin. A removal started later in a run is cut
// off by the run's end.
const cleanStop = 3 * time.Second

func removeBrokerKind() Kind {
	return Kind{Name: KindRemoveBroker, Capability: cluster.CapUnregister, Drawn: true,
		targets: []string{"one", "leader", "controller"},
		Doc: "Takes Params.Target's broker (one, the leader or the controller; one by default) out of the cluster for the " +
			"window: a clean stop, then UnregisterBroker; at the window's end it starts again and registers anew. Kafka 4.0+.",
		kafka: KafkaNeed{Min: "4.0", Why: "remove-broker is verified with DescribeCluster v2, which lists fenced brokers from Kafka 4.0 on"},
		need:  staticNeed(need{takesDown: true, effect: cleanStop}),
		check: func(f Fault, field string, _ *Scenario) error {
			p := f.Params
			rest := p
			rest.Target = ""
			if (p.Target != "" && p.Target != "one" && p.Target != "leader" && p.Target != "controller") || !isZero(rest) {
				return bad(field+".params", "remove-broker takes one broker: target one, leader or controller (not %q, nodes %v)", p.Target, p.Nodes)
			}
			return nil
		},
		footprint: func(f Fault, _ Scenario) Footprint {
			return Footprint{Down: 1, Target: f.Params.Target, Removes: true}
		},
		draw: pickTarget("one", "leader", "controller"),
	}
}
