package kafkachaos_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Controller quorum changes on real brokers (KIP-853, Kafka 3.9+): the
// cluster formatted with a dynamic quorum, and the active controller taken
// out of the voter set for a window while producers and a consumer run,
// then put back.

// TestChaosLocalControllerQuorum: acks=all, min ISR 2, RF 3, the
// idempotent producer and a consumer. The active controller is removed
// from the voters (its node stays a broker and an observer) and resigns;
// the two voters left elect a leader and the brokers carry on, so nothing
// may be lost or duplicated. The removal and the re-addition must both be
// verified by DescribeQuorum: the voters without it, then with it again,
// caught up.
func TestChaosLocalControllerQuorum(t *testing.T) {
	p := requireReal(t, "local")
	s := realScenario("local-controller-quorum", p)
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindRemoveVoter, "controller", 0.15, 0.6)}
	a := safeRun(t, s)
	startV, stopV := nemesisOps(t, a.out, "remove-voter-start", "remove-voter-stop")
	start, stop := voterDetail(t, startV), voterDetail(t, stopV)
	if err := start.removedController(); err != nil {
		t.Error(err)
	}
	if err := stop.addedBack(); err != nil {
		t.Error(err)
	}
	t.Logf("QUORUM: removed voter %d (the active controller) in %s: before %s; after %s; added back in %s: %s; %s",
		start.Nodes[0], start.Took, quorumLine(start.Before), quorumLine(start.After), stop.HealTook, quorumLine(stop.Healed), a)
}

// voterOp is what the remove-voter fault records.
type voterOp struct {
	Nodes      []int32        `json:"nodes"`
	Controller int32          `json:"controller"`
	Before     cluster.Quorum `json:"before"`
	After      cluster.Quorum `json:"after"`
	Healed     cluster.Quorum `json:"healed"`
	Took       string         `json:"took"`
	HealTook   string         `json:"heal-took"`
	Verified   string         `json:"verified"`
}

func voterDetail(t *testing.T, raw json.RawMessage) voterOp {
	t.Helper()
	var op struct {
		Detail voterOp `json:"detail"`
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		t.Fatalf("remove-voter op value %s: %v", raw, err)
	}
	return op.Detail
}

// removedController checks the start op: the active controller before was
// the node removed, three voters became two without it, and it observes.
func (o voterOp) removedController() error {
	if len(o.Nodes) != 1 || o.Nodes[0] != o.Before.Leader {
		return fmt.Errorf("removed %v, want the quorum's leader before, %d", o.Nodes, o.Before.Leader)
	}
	id := o.Nodes[0]
	before, after := voterIDs(o.Before), voterIDs(o.After)
	switch {
	case len(before) != 3 || !slices.Contains(before, id):
		return fmt.Errorf("voters before %v, want three with %d", before, id)
	case len(after) != 2 || slices.Contains(after, id):
		return fmt.Errorf("voters after %v, want two without %d", after, id)
	case !slices.ContainsFunc(o.After.Observers, func(r cluster.QuorumReplica) bool { return r.ID == id }):
		return fmt.Errorf("observers after %v, want %d among them", o.After.Observers, id)
	case o.After.Leader == id:
		return fmt.Errorf("leader after is %d, which is no voter", id)
	}
	return nil
}

// addedBack checks the stop op: three voters again, each within
// realbroker.CaughtUpSlack records of the leader's log end.
func (o voterOp) addedBack() error {
	if ids := voterIDs(o.Healed); len(ids) != 3 {
		return fmt.Errorf("voters after the heal %v, want three", ids)
	}
	var leader int64 = -1
	for _, v := range o.Healed.Voters {
		if v.ID == o.Healed.Leader {
			leader = v.LogEndOffset
		}
	}
	for _, v := range o.Healed.Voters {
		if v.LogEndOffset < 0 || leader-v.LogEndOffset > realbroker.CaughtUpSlack {
			return fmt.Errorf("voter %d at log end %d, leader's %d: not caught up", v.ID, v.LogEndOffset, leader)
		}
	}
	return nil
}

func voterIDs(q cluster.Quorum) []int32 {
	var ids []int32
	for _, v := range q.Voters {
		ids = append(ids, v.ID)
	}
	slices.Sort(ids)
	return ids
}

// quorumLine is a quorum in one line: leader, epoch, high watermark and
// each voter's log end offset.
func quorumLine(q cluster.Quorum) string {
	s := fmt.Sprintf("leader %d epoch %d hw %d voters", q.Leader, q.Epoch, q.HighWatermark)
	for _, v := range q.Voters {
		s += fmt.Sprintf(" %d@%d", v.ID, v.LogEndOffset)
	}
	return s + fmt.Sprintf(" observers %d", len(q.Observers))
}

