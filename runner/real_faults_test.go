package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/generators"
)

// Targets and real-broker kinds go to nemesis.Real; a provider without the
// hook a kind needs fails the schedule with the hook's name, never runs a
// milder fault.
func TestRealFaultsResolveTargetsAndRefuseMissingHooks(t *testing.T) {
	s := smallScenario()
	e := embeddedtest.Start(t, ClusterSpec(s, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sc := &schedule{prov: e, rng: rand.New(rand.NewPCG(1, 2))}
	win := generators.Fault{Start: 0, Duration: generators.Duration(time.Second)}

	kill := win
	kill.Kind, kill.Params.Target = generators.KindKill, "leader"
	f, err := (ClusterFaults{Provider: sc.prov, Scenario: s, IntN: sc.intN}).Fault(kill)
	if err != nil || f == nil || f.Name() != "kill" {
		t.Fatalf("kill of the leader: %v, %v", f, err)
	}
	leader, _ := e.Leader(ctx, s.Keys.Map["0"].Topic, s.Keys.Map["0"].Partition)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range e.Nodes() {
		if n.ID == leader && n.Up {
			t.Errorf("leader %d still up after kill target=leader", leader)
		}
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	plain := win
	plain.Kind = generators.KindKill
	noKey := s
	noKey.Keys.Map = nil
	if f, err := (ClusterFaults{Provider: sc.prov, Scenario: noKey, IntN: sc.intN}).Fault(plain); f == nil || err != nil {
		t.Errorf("a kill without target picks its node by the seed, with no partition to aim at: %v, %v", f, err)
	}
	if _, err := (ClusterFaults{Provider: sc.prov, Scenario: noKey, IntN: sc.intN}).Fault(kill); err == nil || !strings.Contains(err.Error(), "key 0") {
		t.Errorf("a kill of the leader with no key 0 to find it by: %v", err)
	}
	restart := win
	restart.Kind = generators.KindCleanRestart
	if _, err := (ClusterFaults{Provider: sc.prov, Scenario: s, IntN: sc.intN}).Fault(restart); err == nil || !strings.Contains(err.Error(), "NodeStopper") {
		t.Errorf("clean restart on the embedded cluster: %v", err)
	}
}

func TestRealFaultParamsAreValidated(t *testing.T) {
	s := smallScenario()
	for _, f := range []generators.Fault{
		{Kind: generators.KindKill, Params: generators.FaultParams{Target: "the-boss"}},
		{Kind: generators.KindPacketLoss, Params: generators.FaultParams{Percent: 0}},
		{Kind: generators.KindSlowLink},
		{Kind: generators.KindKill, Params: generators.FaultParams{Percent: 5}},
	} {
		f.Duration = s.TimeLimit / 2
		s2 := s
		s2.Nemesis = []generators.Fault{f}
		if err := s2.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0].params") {
			t.Errorf("%+v validated: %v", f, err)
		}
	}
}
