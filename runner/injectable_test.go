package runner

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// realLike is a provider shaped like a real-broker one: it can kill, and it
// counts Starts, which a run refused before the cluster starts never makes.
type realLike struct{ starts int }

func (p *realLike) Name() string { return "real-like" }
func (p *realLike) Start(context.Context, cluster.Spec) error {
	p.starts++
	return errors.New("no cluster here")
}
func (p *realLike) Stop(context.Context) error { return nil }
func (p *realLike) Bootstrap() string          { return "" }
func (p *realLike) Nodes() []cluster.Node      { return nil }
func (p *realLike) Leader(context.Context, string, int32) (int32, error) {
	return -1, errors.New("no leader")
}
func (p *realLike) CreateTopics(context.Context, ...cluster.TopicSpec) error { return nil }
func (p *realLike) Capabilities() []cluster.Capability                       { return []cluster.Capability{cluster.CapKill} }

func withFault(s generators.Scenario, kind string) generators.Scenario {
	f := generators.Fault{Kind: kind, Start: 0, Duration: s.TimeLimit}
	if generators.Instantaneous(kind) {
		f.Duration = 0
	}
	s.Nemesis = append(s.Nemesis, f)
	return s
}

// A fault whose capability is known before Start and missing fails the run
// at once: no cluster start, no run directory, the fault and capability
// named.
func TestRunRefusesUninjectableFaultsBeforeStart(t *testing.T) {
	for kind, capability := range map[string]cluster.Capability{
		generators.KindLostAck:       cluster.CapRequestFaults,
		generators.KindDelay:         cluster.CapRequestFaults,
		generators.KindLeaderShuffle: cluster.CapLeaderMove,
	} {
		prov := &realLike{}
		s := smallScenario()
		s.Cluster.Provider = prov.Name()
		s = withFault(withFault(s, generators.KindKill), kind)
		root := t.TempDir()
		provs := Providers{prov.Name(): func() (cluster.Provider, error) { return prov, nil }}
		_, err := Run(context.Background(), s, Options{RunsDir: root, Providers: provs})
		var u *UnsupportedFault
		if !errors.As(err, &u) || u.Index != 1 || u.Kind != kind || u.Capability != capability || u.Provider != "real-like" {
			t.Errorf("%s: err = %v, want nemesis[1] %s needing %s named", kind, err, kind, capability)
		}
		if prov.starts != 0 {
			t.Errorf("%s: the cluster was started %d times before the refusal", kind, prov.starts)
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Errorf("%s: refused run left %d entries under the runs root", kind, len(ents))
		}
	}
}

// The real providers of the default registry refuse the embedded cluster's
// request faults before they start: no broker, no engine needed to say so.
func TestRealProvidersRefuseLostAckBeforeStart(t *testing.T) {
	for _, name := range []string{"local", "docker"} {
		s := smallScenario()
		s.Cluster.Provider = name
		s = withFault(s, generators.KindLostAck)
		root := t.TempDir()
		_, err := Run(context.Background(), s, Options{RunsDir: root})
		var u *UnsupportedFault
		if !errors.As(err, &u) || u.Provider != name || u.Capability != cluster.CapRequestFaults {
			t.Errorf("%s: err = %v, want lost-ack refused for want of request-faults", name, err)
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Errorf("%s: refused run left %d entries under the runs root", name, len(ents))
		}
	}
}

// Capabilities that depend on Start are not judged before it: a kill on
// the real-like provider reaches Start (which fails here), and the
// embedded registry's cluster passes every kind it has.
func TestInjectableAsksOnlyWhatIsKnownBeforeStart(t *testing.T) {
	prov := &realLike{}
	s := smallScenario()
	s.Cluster.Provider = prov.Name()
	s = withFault(withFault(s, generators.KindPartition), generators.KindPause)
	if err := Injectable(prov, s); err != nil {
		t.Errorf("partition and pause on a provider that may gain them at Start: %v", err)
	}
	provs := Providers{prov.Name(): func() (cluster.Provider, error) { return prov, nil }}
	_, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), Providers: provs})
	if prov.starts != 1 || err == nil {
		t.Errorf("starts %d, err %v: want the start tried and its failure returned", prov.starts, err)
	}
	emb, err := DefaultProviders().New("embedded")
	if err != nil {
		t.Fatal(err)
	}
	e := smallScenario()
	for _, k := range []string{generators.KindLostAck, generators.KindDelay, generators.KindDrop, generators.KindLeaderShuffle} {
		e = withFault(e, k)
	}
	if err := Injectable(emb, e); err != nil {
		t.Errorf("embedded cluster refused its own request faults before Start: %v", err)
	}
}

// What a random scenario draws for a provider (DrawableKinds) is never
// refused before Start, and on the providers whose capabilities do not wait
// for Start (embedded, docker) never refused at all.
func TestKindsForAreInjectable(t *testing.T) {
	for _, name := range []string{"embedded", "local", "docker"} {
		prov, err := DefaultProviders().New(name)
		if err != nil {
			t.Fatal(err)
		}
		s := smallScenario()
		s.Cluster.Provider = name
		for _, k := range DrawableKinds(prov) {
			s = withFault(s, k)
		}
		if err := Injectable(prov, s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if name == "local" {
			continue // partitions depend on what Start finds (root, nftables)
		}
		if err := unsupported(prov, s, func(cluster.Capability) bool { return true }); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
