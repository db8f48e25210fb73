package local

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// A Spec asking for a dynamic quorum gives every node a directory id of
// its own and all of them the same --initial-controllers naming each; their
// server.properties then name the bootstrap servers, no static voters. A
// Spec that does not ask leaves the static quorum alone.
func TestAssignVotersFormatsADynamicQuorum(t *testing.T) {
	p := New(Options{Logf: t.Logf})
	p.nodes = []*node{{id: 1, ip: "10.213.9.1", port: 9092, ctrlPort: 9093}, {id: 2, ip: "10.213.9.2", port: 9092, ctrlPort: 9093},
		{id: 3, ip: "10.213.9.3", port: 9092, ctrlPort: 9093}}
	p.assignVoters(cluster.Spec{})
	if p.dynamicQuorum() || !strings.Contains(serverProperties(p.nodes[0], p.nodes, "/data", nil), "controller.quorum.voters=") {
		t.Fatal("a Spec without DynamicQuorum got a dynamic quorum")
	}
	p.assignVoters(cluster.Spec{DynamicQuorum: true})
	seen := map[string]bool{}
	for _, n := range p.nodes {
		if n.dirID == "" || seen[n.dirID] {
			t.Errorf("node %d: directory id %q, want one of its own", n.id, n.dirID)
		}
		seen[n.dirID] = true
		want := fmt.Sprintf("%d@10.213.9.%d:9093:%s", n.id, n.id, n.dirID)
		if n.initial != p.nodes[0].initial || !strings.Contains(n.initial, want) {
			t.Errorf("node %d: initial controllers %q, want the same on every node, naming %s", n.id, n.initial, want)
		}
		props := serverProperties(n, p.nodes, "/data", nil)
		if strings.Contains(props, "controller.quorum.voters") ||
			!strings.Contains(props, "controller.quorum.bootstrap.servers=10.213.9.1:9093,10.213.9.2:9093,10.213.9.3:9093\n") {
			t.Errorf("node %d's server.properties in a dynamic quorum:\n%s", n.id, props)
		}
	}
	if !p.dynamicQuorum() {
		t.Error("dynamicQuorum() = false after the voters were assigned")
	}
}

// Kafka below 3.9 cannot format a dynamic quorum: Start refuses it, naming
// the Spec field, the scenario's and the version, before it makes anything.
func TestDynamicQuorumNeedsKafka39(t *testing.T) {
	for version, ok := range map[string]bool{"3.6.2": false, "3.8.1": false, "3.9.1": true, "4.4.0": true} {
		err := checkQuorumVersion(cluster.Spec{DynamicQuorum: true}, version)
		if (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", version, err, ok)
		}
		if err != nil && !(strings.Contains(err.Error(), "Spec.DynamicQuorum") && strings.Contains(err.Error(), "cluster.dynamic-quorum") &&
			strings.Contains(err.Error(), "this run's Kafka is "+version)) {
			t.Errorf("%s: %v: want the fields and the version named", version, err)
		}
		if err := checkQuorumVersion(cluster.Spec{}, version); err != nil {
			t.Errorf("%s, static quorum: %v", version, err)
		}
	}
}

// Before Start the provider can format a dynamic quorum if asked; once
// started with a static one it cannot change its voters, and says why. A
// dynamic quorum's health check counts its voters too.
func TestQuorumCapabilityFollowsTheFormat(t *testing.T) {
	p := New(Options{Logf: t.Logf})
	if !cluster.Supports(p, cluster.CapQuorum) {
		t.Error("before Start: no quorum capability")
	}
	p.id = "test"
	p.setNodes([]*node{{id: 1, ip: "127.0.0.1", ctrlPort: 9093}})
	if cluster.Supports(p, cluster.CapQuorum) {
		t.Error("a static quorum lists the quorum capability")
	}
	if err := p.RemoveVoter(t.Context(), 1); err == nil || !strings.Contains(err.Error(), "static") {
		t.Errorf("RemoveVoter on a static quorum: %v, want refused as static", err)
	}
	if strings.Contains(p.HealthChecked(), "voter") {
		t.Errorf("a static quorum's health check names voters: %s", p.HealthChecked())
	}
	p.nodes[0].dirID = "JEXY6aqzQY-32P5TStzaFg"
	if !cluster.Supports(p, cluster.CapQuorum) {
		t.Error("a dynamic quorum lacks the quorum capability")
	}
	if !strings.Contains(p.HealthChecked(), "every node a voter") {
		t.Errorf("a dynamic quorum's health check does not say it checks the voters: %s", p.HealthChecked())
	}
}
