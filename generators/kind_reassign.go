package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Moves one replica of key 0's partition to a broker that holds none for
//   the window and back at its end: needs replication-factor + 1 brokers.
// * Footprint: a replica move. It must not overlap another move, a
//   removal that leaves no broker to move to, a voter out, nor a broker
//   down, cut off or on a failing disk (the move waits on every replica);
//   a draw keeps it apart from added brokers.
// * Drawn without parameters (it reads none).

// KindReassign moves one replica of key 0's partition to a broker that
// holds none of it (AlterPartitionReassignments) for the window and moves
// it back at the window's end; each move counts once the controller lists
// none in progress and the replicas are the target.
const KindReassign = "reassign"

func reassignKind() Kind {
	return Kind{Name: KindReassign, Capability: cluster.CapReassign, Drawn: true,
		Doc: "Moves one replica of key 0's partition to a broker that holds none of it (AlterPartitionReassignments) for the " +
			"window and moves it back at the window's end; each move counts once the controller lists none in progress " +
			"and the replicas are the target. It reads no parameters, and needs one broker more than the replication factor.",
		need:      func(_ Fault, s Scenario) need { return need{brokers: s.Topic.ReplicationFactor + 1} },
		check:     readsNone("it moves a replica of key 0's partition, chosen by the seed, to a broker that holds none"),
		footprint: func(Fault, Scenario) Footprint { return Footprint{Moves: true} },
		draw:      drawNone,
	}
}

// readsNone is the check of a kind that reads no parameters, saying why.
func readsNone(why string) func(Fault, string, *Scenario) error {
	return func(f Fault, field string, _ *Scenario) error {
		if !isZero(f.Params) {
			return bad(field+".params", "%s reads no parameters: %s", f.Kind, why)
		}
		return nil
	}
}
