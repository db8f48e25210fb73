package generators

import "slices"

// Membership fault kinds (real brokers only): which brokers hold what.
const (
	// KindReassign moves one replica of key 0's partition to a broker
	// that holds none of it (AlterPartitionReassignments) for the window
	// and moves it back at the window's end; each move counts once the
	// controller lists none in progress and the replicas are the target.
	KindReassign = "reassign"
	// KindRemoveBroker takes Params.Target's broker (one, the leader or
	// the controller; one by default) out of the cluster for the window:
	// a clean stop, then UnregisterBroker; at the window's end it starts
	// again and registers anew. Kafka 4.0+ (only its DescribeCluster can
	// show the broker gone rather than fenced).
	KindRemoveBroker = "remove-broker"
)

// removeTargets are the targets remove-broker takes: one broker each.
var removeTargets = []string{"", "one", "leader", "controller"}

// reassignNeed is reassign's availability rule: a broker must hold no
// replica of key 0's partition for one to move to.
func reassignNeed(s Scenario) need {
	return need{brokers: s.Topic.ReplicationFactor + 1}
}

// validateMembership checks that a membership kind is given none of the
// parameters it does not read: it picks its replica and broker itself.
func (f Fault) validateMembership(field string) error {
	p := f.Params
	if f.Kind == KindRemoveBroker {
		if !slices.Contains(removeTargets, p.Target) || len(p.Nodes) > 0 {
			return bad(field+".params", "remove-broker takes one broker: target one, leader or controller (not %q, nodes %v)", p.Target, p.Nodes)
		}
		return nil
	}
	if f.Kind != KindReassign {
		return nil
	}
	if p.Target != "" || len(p.Nodes) > 0 || p.Delay != 0 || p.Every != 0 || p.Probability != 0 ||
		p.Point != "" || p.Percent != 0 || p.BitsPerSecond != 0 {
		return bad(field+".params", "reassign reads no parameters: it moves a replica of key 0's partition, chosen by the seed, to a broker that holds none")
	}
	return nil
}
