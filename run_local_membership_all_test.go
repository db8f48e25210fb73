package kafkachaos_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// TestChaosLocalMembership: the three membership changes one after another
// in one run on one cluster, what CI's short profile runs of them: a
// replica of the written partition moved to the broker that holds none and
// back (reassign); a fourth broker added to the running cluster, given one
// of its replicas, then emptied and removed (add-broker); its leader shut
// down cleanly and unregistered, then started again (remove-broker). RF 2
// on three brokers (so that reassign has a broker to move to), min ISR 2,
// the idempotent acks=all producer: each change must fire and heal, and no
// acknowledged write may be lost or duplicated. While the leader is
// removed its partition has one replica in sync, so sends are refused
// (NotEnoughReplicas): that window costs availability, not data. The
// brokers' clocks are movable, as on a campaign's shared cluster: the
// added broker starts with a clock of its own.
func TestChaosLocalMembership(t *testing.T) {
	p := requireReal(t, "local")
	s := realScenario("local-membership", p)
	s.Cluster.Clocks = true
	s.TimeLimit = d(membershipLimit)
	s.Topic.ReplicationFactor = 2
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindReassign, "", 0.03, 0.08),
		faultAt(s, generators.KindAddBroker, "", 0.1, 0.3),
		faultAt(s, generators.KindRemoveBroker, "leader", 0.4, 0.5),
	}
	a := safeRun(t, s)
	moved, back := reassignOps(t, a.out)
	if err := movedOne(moved.From, moved.To); err != nil || !slices.Equal(back.Back, moved.From) {
		t.Errorf("reassign: %v -> %v, back to %v: want one replica moved and the list restored (%v)", moved.From, moved.To, back.Back, err)
	}
	removed, _ := nemesisOps(t, a.out, "remove-broker-start", "remove-broker-stop")
	added, addedBack := detailOps[addBrokerDetail](t, a.out, "add-broker-start", "add-broker-stop")
	if err := checkAdded(added, addedBack, int32(s.Cluster.Brokers)); err != nil {
		t.Errorf("add-broker: %v", err)
	}
	t.Logf("MEMBERSHIP: reassign %v -> %v took %s, back %s; remove-broker %s; add-broker %+v, heal %+v; %s",
		moved.From, moved.To, moved.Took, back.BackTook, removed, added, addedBack, a)
}

// membershipLimit is TestChaosLocalMembership's time limit in every
// profile. Each change waits for the cluster's health before it starts;
// on two loaded cores a move took 0.3-1.5 s, a new broker 4-18 s to join
// and 1-4 s to go, a removed one 3-8 s to go and 8-20 s to come back. The
// remove-broker window, last, leaves 25 s for that and for the load after.
const membershipLimit = 50 * time.Second

// addBrokerDetail is what the add-broker fault records.
type addBrokerDetail struct {
	Nodes      []int32 `json:"nodes"`
	From       []int32 `json:"from"`
	To         []int32 `json:"to"`
	Back       []int32 `json:"back"`
	JoinTook   string  `json:"join-took"`
	Took       string  `json:"took"`
	BackTook   string  `json:"back-took"`
	RemoveTook string  `json:"remove-took"`
	Verified   string  `json:"verified"`
	Healed     string  `json:"healed"`
}

// checkAdded checks what add-broker recorded: one new broker, with an id
// none of the cluster's brokers (1..brokers) has, given one replica of the
// partition in place of another, the list restored at the heal, and each
// step's verification named.
func checkAdded(start, stop addBrokerDetail, brokers int32) error {
	if len(start.Nodes) != 1 || start.Nodes[0] <= brokers {
		return fmt.Errorf("added brokers %v, want one whose id is none of the cluster's 1..%d", start.Nodes, brokers)
	}
	id := start.Nodes[0]
	if err := movedOne(start.From, start.To); err != nil || !slices.Contains(start.To, id) {
		return fmt.Errorf("moved %v to %v: want one replica moved to new broker %d (%v)", start.From, start.To, id, err)
	}
	if !slices.Equal(stop.Back, start.From) || stop.RemoveTook == "" {
		return fmt.Errorf("heal moved back to %v (want %v) and removed the broker in %q", stop.Back, start.From, stop.RemoveTook)
	}
	for _, v := range []string{start.Verified, stop.Healed} {
		if v == "" || strings.Contains(v, "not checked") {
			return fmt.Errorf("verified %q, healed %q: want what the provider checked", start.Verified, stop.Healed)
		}
	}
	return nil
}
