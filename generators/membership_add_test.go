package generators

import (
	"strings"
	"testing"
	"time"
)

// addBrokerScenario is the baseline on the local provider, limit long,
// with one add-broker window from start for 5 s.
func addBrokerScenario(limit, start time.Duration, p FaultParams) Scenario {
	s := Baseline("add-broker", "local", limit)
	s.Nemesis = []Fault{{Kind: KindAddBroker, Start: Duration(start), Duration: Duration(5 * time.Second), Params: p}}
	return s
}

// add-broker reads no parameters, names its capability, holds a window,
// and needs time before the run ends for its broker to join and take a
// replica: a window that opens too late is refused, naming why.
func TestAddBrokerIsValidated(t *testing.T) {
	if s := addBrokerScenario(60*time.Second, 5*time.Second, FaultParams{}); s.Validate() != nil {
		t.Errorf("a window at 5s of 60s: %v, want valid", s.Validate())
	}
	for _, p := range []FaultParams{{Target: "leader"}, {Nodes: []int32{1}}, {Delay: Duration(time.Second)}, {Percent: 5}} {
		s := addBrokerScenario(60*time.Second, 5*time.Second, p)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].params: add-broker reads no parameters") {
			t.Errorf("%+v: %v, want the parameters refused", p, err)
		}
	}
	s := addBrokerScenario(40*time.Second, 15*time.Second, FaultParams{})
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].start: add-broker steps at [15s], none between 0s (its clients up) and 10s (30s before the 40s time limit") {
		t.Errorf("a window 25s before the end: %v, want refused for want of time to join", err)
	}
	if c := KindCapability(KindAddBroker); c != "add-broker" {
		t.Errorf("KindCapability(add-broker) = %q", c)
	}
	if Instantaneous(KindAddBroker) {
		t.Error("add-broker holds a window: added for it, removed at its end")
	}
}

// An added broker listens directly: a scenario whose clients or replication
// go through proxies cannot hold add-broker, and a shared cluster's draw
// holding it asks for no client proxies.
func TestAddBrokerRefusesProxies(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Scenario)
		ok   bool
	}{
		{"direct", func(*Scenario) {}, true},
		{"client proxies", func(s *Scenario) { s.Cluster.ClientProxies = true }, false},
		{"replication proxies", func(s *Scenario) { s.Cluster.ReplicationProxies = true }, false},
		{"a delayed-requests fault", func(s *Scenario) {
			s.Nemesis = append(s.Nemesis, Fault{Kind: KindDelayedRequests, Start: Duration(20 * time.Second), Duration: Duration(5 * time.Second)})
		}, false},
	} {
		s := addBrokerScenario(60*time.Second, 5*time.Second, FaultParams{})
		tc.edit(&s)
		err := s.Validate()
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "nemesis[0].kind: add-broker adds a broker that no proxy serves") {
			t.Errorf("%s: %v, want valid %v", tc.name, err, tc.ok)
		}
	}
	sp := ShortSpace()
	sp.Provider, sp.Kinds, sp.MinFaults, sp.Shared = "local", KindsFor("local"), 1, true
	sp.MinTime, sp.MaxTime = 60*time.Second, 90*time.Second
	found := 0
	for seed := int64(0); seed < 400 && found < 3; seed++ {
		s := RandomIn(sp, seed)
		if !addsBroker(s) {
			continue
		}
		found++
		if s.Cluster.ClientProxies {
			t.Errorf("seed %d: a shared draw holding add-broker asks for client proxies", seed)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
	if found == 0 {
		t.Fatal("no shared draw of 400 held add-broker: the test shows nothing")
	}
}
