package generators

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// providerCaps is, by provider name, the capabilities a random draw on it
// may ask for, where the machine has every tool the provider uses: the one
// table of which kinds a provider runs (KindsFor derives from it and the
// kinds' capabilities). What a provider has on this machine its
// Capabilities say once it exists (runner.DrawableKinds). The embedded
// cluster pauses nodes too, but a pause there holds the clients' requests
// in kfake's controls rather than freezing a process, and is not drawn;
// the simulation's in-memory network has no place for proxies.
func providerCaps(provider string) []cluster.Capability {
	real := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition, cluster.CapProxy,
		cluster.CapClock, cluster.CapDisk, cluster.CapReassign}
	switch provider {
	case "embedded":
		return []cluster.Capability{cluster.CapKill, cluster.CapLeaderMove, cluster.CapRequestFaults, cluster.CapProxy}
	case "sim":
		return []cluster.Capability{cluster.CapKill, cluster.CapLeaderMove, cluster.CapRequestFaults}
	case "local":
		return append(real, cluster.CapUnregister, cluster.CapAddBroker, cluster.CapQuorum)
	case "docker":
		return real
	case "external":
		// what an inventory's hosts may offer; a campaign keeps those
		// its hosts do (cluster/external's Probe)
		return []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition}
	}
	return nil // another provider: faults on the clients only
}

// KindsFor is the fault kinds a random scenario on provider draws from:
// the drawn kinds (Kind.Drawn) whose capability the provider has
// (providerCaps), the client faults everywhere. What the provider's Kafka
// release or machine cannot run (add-broker below 4.0, remove-voter below
// 3.9, clocks without libfaketime) runner.DrawableKinds leaves out.
func KindsFor(provider string) []string {
	caps := providerCaps(provider)
	var out []string
	for _, k := range Registry() {
		if k.Drawn && (k.Capability == "" || slices.Contains(caps, k.Capability)) {
			out = append(out, k.Name)
		}
	}
	return out
}

// replicationLinkOn reports whether provider's brokers can replicate
// through the harness's proxies (a latency fault with link replication):
// the local provider's alone.
func replicationLinkOn(provider string) bool { return provider == "local" }

// nodeIDs is the range of broker ids provider gives a cluster of brokers:
// the embedded cluster (kfake) numbers them from 0, the real KRaft clusters
// (local, docker) from 1, as their node.id. known is false where the ids
// are not the harness's to choose (an external cluster, a provider
// registered elsewhere).
func nodeIDs(provider string, brokers int) (first, last int32, known bool) {
	switch provider {
	case "embedded":
		return 0, int32(brokers) - 1, true
	case "local", "docker":
		return 1, int32(brokers), true
	}
	return 0, 0, false
}
