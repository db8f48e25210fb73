package generators

import (
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Grows the cluster by a broker-only node for the window and moves a
//   replica of key 0's partition onto it; back, stopped and removed at its
//   end. Acts on any cluster, and needs time: a format and a broker JVM,
//   then the move, before the run ends (addBrokerEffect). Kafka 4.0+.
// * Footprint: an added broker. It must not overlap a voter out, nor a
//   broker down, cut off or on a failing disk (its move waits on every
//   replica); a draw keeps other membership changes apart from it. Heal
//   budget: the move back and the removal.
// * The added broker listens directly: a scenario whose clients or
//   replication go through proxies cannot hold it (addAvailable), and a
//   shared cluster's draw holding it asks for no client proxies.
// * Drawn without parameters (it reads none), in runs long enough.

// KindAddBroker grows the cluster by a new broker-only node (the next id
// after the cluster's) for the window and moves one replica of key 0's
// partition onto it; at the window's end the replica moves back and the
// broker is stopped, unregistered and removed. Each step counts once
// verified. Kafka 4.0+ (as remove-broker). It reads no parameters.
const KindAddBroker = "add-broker"

// addBrokerEffect is how long an added broker takes to join and take a
// replica: a format JVM and a broker JVM started (4-18 s together on
// cluster/local with two loaded cores), then a move of a second or less;
// with margin.
const addBrokerEffect = 30 * time.Second

// addBrokerHeal is how long the added broker takes to leave: its replica
// moved back, then a clean stop and an unregistration.
const addBrokerHeal = 10 * time.Second

func addBrokerKind() Kind {
	return Kind{Name: KindAddBroker, Capability: cluster.CapAddBroker, Drawn: true, heal: addBrokerHeal,
		Doc: "Grows the cluster by a new broker-only node (the next id after the cluster's) for the window and moves one " +
			"replica of key 0's partition onto it; at the window's end the replica moves back and the broker is stopped, " +
			"unregistered and removed. Each step counts once verified. Kafka 4.0+. It reads no parameters. The added broker " +
			"listens directly, so a run whose clients or replication go through proxies cannot hold it.",
		kafka:     KafkaNeed{Min: "4.0", Why: "add-broker is verified with DescribeCluster v2, which lists fenced brokers from Kafka 4.0 on"},
		need:      staticNeed(need{effect: addBrokerEffect}),
		check:     readsNone("it adds the broker with the next id and moves a replica of key 0's partition, chosen by the seed, onto it"),
		footprint: func(Fault, Scenario) Footprint { return Footprint{Adds: true} },
		draw:      drawNone,
	}
}
