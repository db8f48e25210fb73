package generators

import (
	"strings"
	"testing"
	"time"
)

// removeVoterScenario is the baseline on provider with one remove-voter
// window.
func removeVoterScenario(provider string, p FaultParams) Scenario {
	s := Baseline("remove-voter", provider, 20*time.Second)
	s.Nemesis = []Fault{{Kind: KindRemoveVoter, Start: Duration(2 * time.Second), Duration: Duration(8 * time.Second), Params: p}}
	return s
}

// remove-voter takes one controller (one or the active one), reads its
// target alone, needs the quorum capability and a voter left, and gives
// the scenario a dynamic quorum.
func TestRemoveVoterIsValidated(t *testing.T) {
	for _, target := range []string{"", "one", "controller"} {
		s := removeVoterScenario("local", FaultParams{Target: target})
		if err := s.Validate(); err != nil {
			t.Errorf("target %q: %v, want valid", target, err)
		}
		if !s.DynamicQuorum() {
			t.Errorf("target %q: a remove-voter scenario without a dynamic quorum", target)
		}
	}
	for _, p := range []FaultParams{{Target: "leader"}, {Target: "majority"}, {Nodes: []int32{1}},
		{Target: "one", Every: Duration(time.Second)}, {Delay: Duration(time.Second)}, {Probability: 0.5}} {
		s := removeVoterScenario("local", p)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].params: remove-voter reads target alone") {
			t.Errorf("%+v: %v, want the parameters refused", p, err)
		}
	}
	s := removeVoterScenario("local", FaultParams{})
	s.Cluster.Brokers, s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = 1, 1, 1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "remove-voter needs 2 brokers") {
		t.Errorf("one broker: %v, want refused (Kafka keeps its last voter)", err)
	}
	if c := KindCapability(KindRemoveVoter); c != "quorum" {
		t.Errorf("KindCapability(remove-voter) = %q", c)
	}
	if Instantaneous(KindRemoveVoter) {
		t.Error("remove-voter holds a window: removed for it, added back at its end")
	}
}

// cluster.dynamic-quorum asks for a dynamic quorum without a fault; only
// the local provider formats one, and the field is named when another
// provider is asked, whether by the field or by a remove-voter fault.
func TestDynamicQuorumOnlyOnTheLocalProvider(t *testing.T) {
	s := Baseline("dynamic", "local", 10*time.Second)
	if s.DynamicQuorum() {
		t.Error("the baseline has a dynamic quorum")
	}
	s.Cluster.DynamicQuorum = true
	if err := s.Validate(); err != nil || !s.DynamicQuorum() {
		t.Errorf("local with cluster.dynamic-quorum: %v, dynamic %v", err, s.DynamicQuorum())
	}
	for _, provider := range []string{"embedded", "docker", "external"} {
		s := Baseline("dynamic", provider, 10*time.Second)
		s.Cluster.DynamicQuorum = true
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "cluster.dynamic-quorum: cluster.dynamic-quorum is set, and only the local provider") {
			t.Errorf("%s with cluster.dynamic-quorum: %v, want refused naming the field", provider, err)
		}
		f := removeVoterScenario(provider, FaultParams{})
		if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "cluster.dynamic-quorum: a remove-voter fault needs one") {
			t.Errorf("%s with remove-voter: %v, want refused naming the field", provider, err)
		}
	}
}
