package generators

import (
	"strings"
	"testing"
	"time"
)

// reassignScenario is the baseline on the local provider with one
// reassign window and rf replicas per partition.
func reassignScenario(rf int, p FaultParams) Scenario {
	s := Baseline("reassign", "local", 10*time.Second)
	s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = rf, min(rf, 2)
	s.Nemesis = []Fault{{Kind: KindReassign, Start: Duration(time.Second), Duration: Duration(5 * time.Second), Params: p}}
	return s
}

// A replica can move only to a broker that holds none: with as many
// replicas as brokers the fault is refused, naming why; with fewer it
// runs. It reads no parameters, and names its capability.
func TestReassignNeedsAFreeBroker(t *testing.T) {
	if s := reassignScenario(2, FaultParams{}); s.Validate() != nil {
		t.Errorf("RF 2 on 3 brokers: %v, want valid", s.Validate())
	}
	s := reassignScenario(3, FaultParams{})
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].kind: reassign needs 4 brokers to act on, the cluster has 3") {
		t.Errorf("RF 3 on 3 brokers: %v, want refused for want of a fourth broker", err)
	}
	for _, p := range []FaultParams{{Target: "leader"}, {Nodes: []int32{1}}, {Every: Duration(time.Second)}} {
		s := reassignScenario(2, p)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].params: reassign reads no parameters") {
			t.Errorf("%+v: %v, want the parameters refused", p, err)
		}
	}
	if c := KindCapability(KindReassign); c != "reassign" {
		t.Errorf("KindCapability(reassign) = %q", c)
	}
	if Instantaneous(KindReassign) {
		t.Error("reassign holds a window: moved for it, moved back at its end")
	}
}

// remove-broker takes one broker (one, leader or controller), needs the
// unregister capability, and takes a node down: it must leave a majority
// up beside the other node faults.
func TestRemoveBrokerIsValidated(t *testing.T) {
	ok := func(target string) Scenario {
		s := Baseline("remove", "local", 20*time.Second)
		s.Nemesis = []Fault{{Kind: KindRemoveBroker, Start: Duration(time.Second), Duration: Duration(5 * time.Second),
			Params: FaultParams{Target: target}}}
		return s
	}
	for _, target := range []string{"", "one", "leader", "controller"} {
		if s := ok(target); s.Validate() != nil {
			t.Errorf("target %q: %v, want valid", target, s.Validate())
		}
	}
	for _, target := range []string{"majority", "all", "minority"} {
		s := ok(target)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "remove-broker takes one broker") {
			t.Errorf("target %q: %v, want refused", target, err)
		}
	}
	both := ok("leader")
	both.Nemesis[0].Start = Duration(2 * time.Second)
	both.Nemesis = append(both.Nemesis, Fault{Kind: KindKill, Start: Duration(time.Second), Duration: Duration(5 * time.Second), Params: FaultParams{Target: "majority"}})
	if err := both.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].start: remove-broker starts at 2s while nemesis[1] hold 2 of 3 brokers down") {
		t.Errorf("remove-broker while a majority is killed: %v, want no majority named", err)
	}
	if c := KindCapability(KindRemoveBroker); c != "unregister" {
		t.Errorf("KindCapability(remove-broker) = %q", c)
	}
}
