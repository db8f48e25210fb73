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
