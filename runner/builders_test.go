package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/client/java"
	"github.com/kafkachaos/kafkachaos/workers"

	"github.com/kafkachaos/kafkachaos/generators"
)

// Every kind a real or embedded provider claims (generators.KindsFor) has
// a builder here: a cluster kind a cluster builder, a client kind one for
// in-process clients and one for worker processes, since either may run
// it. The runner builds more than any one provider claims, and exactly
// the registry's kinds: KindsFor is what a draw takes, and a scenario
// written by hand may name any kind (a clean restart, a partition of the
// leader) on any provider, whose capabilities then decide whether it runs
// (Unsupported).
func TestBuildersCoverTheProvidersKinds(t *testing.T) {
	cb, lb := clusterBuilders(), clientBuilders()
	for _, p := range []string{"local", "docker", "embedded"} {
		for _, k := range generators.KindsFor(p) {
			_, onCluster := cb[k]
			l, onClients := lb[k]
			switch {
			case onCluster == onClients:
				t.Errorf("%s claims %s: cluster builder %v, client builder %v; want exactly one", p, k, onCluster, onClients)
			case onClients && (l.inProcess == nil || l.procs == nil):
				t.Errorf("%s claims client kind %s: a builder for in-process clients %v, for worker processes %v; want both",
					p, k, l.inProcess != nil, l.procs != nil)
			}
		}
	}
	for _, k := range generators.Kinds() {
		_, onCluster := cb[k]
		_, onClients := lb[k]
		needs := generators.KindCapability(k) != ""
		if onCluster != needs || onClients == needs {
			t.Errorf("kind %s (capability %q): cluster builder %v, client builder %v; a kind with a capability acts on the cluster, one without on the clients",
				k, generators.KindCapability(k), onCluster, onClients)
		}
	}
	for k := range cb {
		if !slices.Contains(generators.Kinds(), k) {
			t.Errorf("a cluster builder for %q, which the registry does not know", k)
		}
	}
	for k := range lb {
		if !slices.Contains(generators.Kinds(), k) {
			t.Errorf("a client builder for %q, which the registry does not know", k)
		}
	}
}

// The java client's workers are what pause-client stops in process.
var _ = []pausable{(*java.Producer)(nil), (*java.Consumer)(nil), (*java.Copier)(nil), (*java.TxnQueue)(nil)}

// fakeJVM is a consumer in a process of its own, as the java client's.
type fakeJVM struct {
	workers.ConsumerClient
	process int64
	paused  bool
}

func (f *fakeJVM) Process() int64 { return f.process }
func (f *fakeJVM) Ended() bool    { return false }
func (f *fakeJVM) PID() int       { return int(f.process) + 1000 }
func (f *fakeJVM) Paused() bool   { return f.paused }
func (f *fakeJVM) Pause(context.Context) error {
	f.paused = true
	return nil
}
func (f *fakeJVM) Resume(context.Context) error {
	f.paused = false
	return nil
}

// fakeCopierJVM is a copier in a process of its own, as the java
// client's.
type fakeCopierJVM struct {
	workers.CopierClient
	*fakeJVM
}

func (f fakeCopierJVM) Process() int64 { return f.fakeJVM.Process() }
func (f fakeCopierJVM) Ended() bool    { return false }

// pause-client of the copiers stops a copier's JVM.
func TestInProcessPauseStopsACopierJVM(t *testing.T) {
	sc := &schedule{rng: rand.New(rand.NewPCG(1, 2)), copiers: []*workers.CopierSlot{{}}}
	jvm := &fakeJVM{process: 9}
	sc.copiers[0].Put(fakeCopierJVM{fakeJVM: jvm})
	f, err := sc.fault(generators.Fault{Kind: generators.KindPauseClient, Params: generators.FaultParams{Role: generators.RoleCopier}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Start(t.Context()); err != nil || !jvm.paused {
		t.Fatalf("start: %v, paused %v; want the copier's JVM paused", err, jvm.paused)
	}
	if detail := f.(*pauseClient).Detail().(map[string]any); detail["role"] != generators.RoleCopier || detail["pid"] != 1009 {
		t.Errorf("detail %v", detail)
	}
	if err := f.Stop(t.Context()); err != nil || jvm.paused {
		t.Fatalf("stop: %v, paused %v; want it going on", err, jvm.paused)
	}
}

// pause-client on in-process clients stops a client that runs in a
// process of its own and no pause holds, and lets it go on at the end;
// with none such (librdkafka's, or every JVM held) it does not fire.
func TestInProcessPauseStopsAJVM(t *testing.T) {
	sc := &schedule{rng: rand.New(rand.NewPCG(1, 2)), consumers: []*workers.ConsumerSlot{{}, {}}}
	jvm := &fakeJVM{process: 7}
	sc.consumers[1].Put(jvm)
	f, err := sc.fault(generators.Fault{Kind: generators.KindPauseClient, Params: generators.FaultParams{Role: generators.RoleConsumer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Start(t.Context()); err != nil || !jvm.paused {
		t.Fatalf("start: %v, paused %v; want the JVM paused", err, jvm.paused)
	}
	detail := f.(*pauseClient).Detail().(map[string]any)
	if detail["pid"] != 1007 || detail["signal"] != "SIGSTOP" || !slices.Equal(detail["processes"].([]int64), []int64{7}) {
		t.Errorf("detail %v", detail)
	}
	second, _ := sc.fault(generators.Fault{Kind: generators.KindPauseClient})
	if err := second.Start(t.Context()); !errors.Is(err, errNotFired) || !errors.Is(err, workers.ErrNothingToCrash) {
		t.Errorf("a second pause with the one JVM held: %v, want not fired, nothing to pause", err)
	}
	if err := f.Stop(t.Context()); err != nil || jvm.paused {
		t.Fatalf("stop: %v, paused %v; want it going on", err, jvm.paused)
	}
	producers, _ := sc.fault(generators.Fault{Kind: generators.KindPauseClient, Params: generators.FaultParams{Role: generators.RoleProducer}})
	if err := producers.Start(t.Context()); !errors.Is(err, workers.ErrNothingToCrash) {
		t.Errorf("a pause of producers, none in a process of its own: %v, want nothing to pause", err)
	}
}
