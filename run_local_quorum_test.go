package kafkachaos_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
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
	requireDynamicQuorum(t)
	s := realScenario("local-controller-quorum", p)
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindRemoveVoter, "controller", 0.15, 0.6)}
	a := safeRun(t, s)
	start, stop := voterOps(t, a)
	t.Logf("QUORUM: removed voter %d (the active controller) in %s: before %s; after %s; added back in %s: %s; %s",
		start.Nodes[0], start.Took, quorumLine(start.Before), quorumLine(start.After), stop.HealTook, quorumLine(stop.Healed), a)
}

// TestChaosLocalControllerQuorumKill (full profile): the same removal,
// and while two voters are left the new active controller is killed.
// Predicted: one voter of two is no majority, so there is no controller
// until the killed one is back: no leader elections, no ISR shrinks, so
// acks=all sends to a partition it led or followed wait until its restart,
// where with three voters a new leader or a smaller ISR lets them go on
// within seconds (the control: the same kill, no voter removed, on the
// same dynamic-quorum cluster). Either way no acknowledged write may be
// lost or duplicated, and the voter is added back once the quorum is
// whole.
func TestChaosLocalControllerQuorumKill(t *testing.T) {
	p := requireFull(t, "local", "experiment: full profile only (make chaos-local); CI's short profile runs TestChaosLocalControllerQuorum")
	requireDynamicQuorum(t)
	s := realScenario("local-controller-quorum-kill", p)
	s.Workload.Consumers = 1
	s.Cluster.DynamicQuorum = true // the control runs on the same cluster
	kill := faultAt(s, generators.KindKill, "controller", 0.3, 0.5)
	s.Nemesis = []generators.Fault{kill}
	control := safeRun(t, s)
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindRemoveVoter, "controller", 0.1, 0.8), kill}
	a := safeRun(t, s)
	start, stop := voterOps(t, a)
	t.Logf("QUORUM+KILL: removed voter %d (after: %s), then the new controller killed for %s; sends: %s; healed %s; %s",
		start.Nodes[0], quorumLine(start.After), kill.Duration, sendAvailability(a), quorumLine(stop.Healed), a)
	t.Logf("CONTROL (the same kill, three voters): sends: %s; %s", sendAvailability(control), control)
}

// sendAvailability is the run's longest gap without an ok send during the
// faults, and the recovery after the last heal.
func sendAvailability(a attempt) string {
	l := a.out.Result.Liveness
	if l == nil {
		return "not measured"
	}
	for _, k := range l.Kinds {
		if k.Kind != "send" {
			continue
		}
		out := "no gap during the faults"
		if k.DuringFaults != nil {
			out = fmt.Sprintf("longest gap during the faults %s", time.Duration(k.DuringFaults.Ns).Round(time.Millisecond))
		}
		if k.RecoveryNs != nil {
			out += fmt.Sprintf(", first ok %s after the last heal", time.Duration(*k.RecoveryNs).Round(time.Millisecond))
		}
		return fmt.Sprintf("%s; stalls %v", out, l.Stalls)
	}
	return "no sends"
}

// requireDynamicQuorum skips on a Kafka release without dynamic voters
// (below 3.9): the local provider refuses to start such a cluster.
func requireDynamicQuorum(t *testing.T) {
	t.Helper()
	if err := realbroker.CheckDynamicQuorum(kafkadist.Version(), "a remove-voter test"); err != nil {
		t.Skip(err)
	}
}

// voterOps is the run's remove-voter start and stop ops; the start must
// have removed the active controller and the stop added it back, caught
// up, as DescribeQuorum showed them.
func voterOps(t *testing.T, a attempt) (start, stop voterOp) {
	t.Helper()
	startV, stopV := nemesisOps(t, a.out, "remove-voter-start", "remove-voter-stop")
	start, stop = voterDetail(t, startV), voterDetail(t, stopV)
	if err := start.removedController(); err != nil {
		t.Error(err)
	}
	if err := stop.addedBack(); err != nil {
		t.Error(err)
	}
	return start, stop
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
