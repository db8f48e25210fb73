package generators

import (
	"slices"
	"time"
)

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
	// KindAddBroker grows the cluster by a new broker-only node (the
	// next id after the cluster's) for the window and moves one replica
	// of key 0's partition onto it; at the window's end the replica
	// moves back and the broker is stopped, unregistered and removed.
	// Each step counts once verified. Kafka 4.0+ (as remove-broker). It
	// reads no parameters.
	KindAddBroker = "add-broker"
)

// removeTargets are the targets remove-broker takes: one broker each.
var removeTargets = []string{"", "one", "leader", "controller"}

// membershipNeed is a membership kind's availability rule, and false for
// other kinds. Reassign needs a broker that holds no replica of key 0's
// partition, for one to move to. Add-broker acts on any cluster, and
// needs time: its broker's storage is formatted and its JVM started, then
// a replica copied onto it, all before the run ends (addBrokerEffect).
func membershipNeed(kind string, s Scenario) (need, bool) {
	switch kind {
	case KindReassign:
		return need{brokers: s.Topic.ReplicationFactor + 1}, true
	case KindAddBroker:
		return need{effect: addBrokerEffect}, true
	}
	return need{}, false
}

// addBrokerEffect is how long an added broker takes to join and take a
// replica: a format JVM and a broker JVM started (4-18 s together on
// cluster/local with two loaded cores), then a move of a second or less;
// with margin.
const addBrokerEffect = 30 * time.Second

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
	why := readsNone(f.Kind)
	if why == "" {
		return nil
	}
	if p.Target != "" || len(p.Nodes) > 0 || p.Delay != 0 || p.Every != 0 || p.Probability != 0 ||
		p.Point != "" || p.Percent != 0 || p.BitsPerSecond != 0 {
		return bad(field+".params", "%s reads no parameters: %s", f.Kind, why)
	}
	return nil
}

// readsNone says why a membership kind reads no parameters; "" for one
// that reads some.
func readsNone(kind string) string {
	switch kind {
	case KindReassign:
		return "it moves a replica of key 0's partition, chosen by the seed, to a broker that holds none"
	case KindAddBroker:
		return "it adds the broker with the next id and moves a replica of key 0's partition, chosen by the seed, onto it"
	}
	return ""
}
