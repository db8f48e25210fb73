package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
)

// A latency fault on the replication link asks the cluster for replication
// proxies (not the clients'), is keyed apart for reuse, and reaches the
// ReplicationProxier hook, which the embedded cluster lacks: the schedule
// fails naming it, and the embedded cluster refuses such a spec at start.
func TestReplicationLatencyNeedsReplicationProxies(t *testing.T) {
	s := smallScenario()
	f := generators.Fault{Kind: generators.KindLatency, Start: s.TimeLimit / 4, Duration: s.TimeLimit / 2,
		Params: generators.FaultParams{Link: generators.LinkReplication, Target: "leader"}}
	plain := s
	s.Nemesis = []generators.Fault{f}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	spec := ClusterSpec(s, "")
	if !spec.ReplicationProxied || spec.Proxied {
		t.Errorf("spec replication proxied %v, clients proxied %v; want true, false", spec.ReplicationProxied, spec.Proxied)
	}
	if reuseKey(s) == reuseKey(plain) {
		t.Error("a cluster without replication proxies could serve a run that needs them")
	}
	plain.Cluster.ReplicationProxies = true
	if reuseKey(s) != reuseKey(plain) {
		t.Error("a baseline asking for replication proxies does not share the cluster of the run with the toxic")
	}
	e := embedded.New()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Start(ctx, spec); err == nil || !strings.Contains(err.Error(), "replication proxies") {
		e.Stop(context.Background())
		t.Errorf("embedded start with replication proxies: %v, want a refusal", err)
	}
	sc := &schedule{prov: e, rng: rand.New(rand.NewPCG(1, 2))}
	nf, err := (ClusterFaults{Provider: sc.prov, Scenario: s, IntN: sc.intN}).Fault(f)
	if nf != nil || err == nil || !strings.Contains(err.Error(), "ReplicationProxier") {
		t.Errorf("embedded cluster: fault %v, err %v; want an error naming the missing hook", nf, err)
	}
}
