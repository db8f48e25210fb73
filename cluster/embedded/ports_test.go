package embedded

import (
	"context"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Leased ports lie below the ephemeral range, where no bind to port 0 and
// no outgoing connection lands, and no other lease gets them until they
// are released.
func TestLeasedPortsAreBelowTheEphemeralRangeAndExclusive(t *testing.T) {
	a, err := leasePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.release()
	if len(a.ports) != 3 || len(slices.Compact(slices.Sorted(slices.Values(a.ports)))) != 3 {
		t.Fatalf("leased %v, want three distinct ports", a.ports)
	}
	for _, p := range a.ports {
		if p < portsFloor || p >= ephemeralLow() {
			t.Errorf("port %d outside %d-%d", p, portsFloor, ephemeralLow()-1)
		}
	}
	b, err := leasePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	for _, p := range a.ports {
		if b.take(p) {
			t.Errorf("port %d leased twice", p)
		}
	}
	a.release()
	if !b.take(a.ports[0]) {
		t.Errorf("port %d not leasable after its release", a.ports[0])
	}
}

// A killed node's port stays the cluster's while the node is down: no
// other cluster can lease it, and the restart gets it back.
func TestKilledNodesPortStaysLeased(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	ctx := context.Background()
	port := e.nodes[0].port
	if port < portsFloor || port >= ephemeralLow() {
		t.Fatalf("node 0's port %d is not a leased one (%d-%d)", port, portsFloor, ephemeralLow()-1)
	}
	if err := e.Kill(ctx, 0); err != nil {
		t.Fatal(err)
	}
	other, err := leasePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	defer other.release()
	if other.take(port) {
		t.Fatalf("another cluster leased port %d of a killed node", port)
	}
	if err := e.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
}
