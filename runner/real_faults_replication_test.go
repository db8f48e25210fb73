package runner

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
)

// isolate-leader-replication is a valid scenario fault that needs
// partitions, and the runner hands it to nemesis.Real, which refuses a
// provider without the hooks by name rather than running something milder.
func TestIsolateLeaderReplicationReachesNemesis(t *testing.T) {
	s := smallScenario()
	f := generators.Fault{Kind: generators.KindIsolateLeaderReplication, Start: s.TimeLimit / 4, Duration: s.TimeLimit / 2}
	s.Nemesis = []generators.Fault{f}
	if err := s.Validate(); err != nil {
		t.Fatalf("scenario with %s: %v", f.Kind, err)
	}
	if c := generators.KindCapability(f.Kind); c != cluster.CapPartition {
		t.Errorf("capability %q, want %q", c, cluster.CapPartition)
	}
	sc := &schedule{prov: embedded.New(), rng: rand.New(rand.NewPCG(1, 2))}
	nf, err := (ClusterFaults{Provider: sc.prov, Scenario: s, IntN: sc.intN}).Fault(f)
	if nf != nil || err == nil || !strings.Contains(err.Error(), "isolate-leader-replication") || !strings.Contains(err.Error(), "Partitioner") {
		t.Errorf("embedded cluster: fault %v, err %v; want an error naming the kind and the missing hook", nf, err)
	}
}
