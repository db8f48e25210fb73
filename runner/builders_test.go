package runner

import (
	"slices"
	"testing"

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

// A client kind without an in-process builder (pause-client stops a
// worker's process) is refused on in-process clients, naming the kind.
func TestClientKindWithoutInProcessBuilderIsRefused(t *testing.T) {
	sc := &schedule{}
	_, err := sc.fault(generators.Fault{Kind: generators.KindPauseClient})
	if err == nil {
		t.Fatal("pause-client built for in-process clients")
	}
	if got := err.Error(); got != `fault kind "pause-client" has no nemesis in this build` {
		t.Errorf("error %q", got)
	}
}
