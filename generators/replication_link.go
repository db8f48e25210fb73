package generators

import (
	"slices"
)

// Links a latency fault's toxic acts on (Params.Link).
const (
	// LinkClients (or "") is the clients' proxies: every request of the
	// run's clients to the target's brokers.
	LinkClients = "clients"
	// LinkReplication is the brokers' replication proxies: what the
	// target's peers send it on the inter-broker listener, above all a
	// follower's fetches from a leader (local provider only). The run's
	// brokers then replicate through a proxy each, and the clients and the
	// controller quorum stay direct.
	LinkReplication = "replication"
)

func latencyLinks() []string { return []string{LinkClients, LinkReplication} }

// onReplication reports whether f acts on the brokers' replication proxies.
func (f Fault) onReplication() bool {
	return f.Kind == KindLatency && f.Params.Link == LinkReplication
}

// ReplicationProxied reports whether s's brokers replicate through proxies:
// its cluster asks for them (a baseline for a run with a toxic on them) or
// a latency fault acts on them.
func (s Scenario) ReplicationProxied() bool {
	return s.Cluster.ReplicationProxies || slices.ContainsFunc(s.Nemesis, Fault.onReplication)
}

// replicationAvailable refuses fault i of s when it cuts links by a
// peer's address (or a port) inside the nodes' namespaces (Footprint's
// ByAddress) on a run whose brokers replicate through proxies: the brokers
// then reach each other at the harness's address, so such a cut would
// leave their replication up (or, cutting the clients, cut it too), and
// the kinds are refused rather than half applied. Packet loss and slow
// links act on every packet of a node and still hold. It refuses also a toxic on the
// replication link of a topic without followers, whose records no fetch
// it slows would carry.
func replicationAvailable(s Scenario, i int, field string) error {
	f := s.Nemesis[i]
	if f.onReplication() && s.Topic.ReplicationFactor < 2 {
		return bad(field+".params.link", "%s on the replication link slows followers' fetches, and the topic has replication factor %d: no follower of the run's keys",
			LinkReplication, s.Topic.ReplicationFactor)
	}
	if !s.ReplicationProxied() || !footprintOf(f, s).ByAddress {
		return nil
	}
	return bad(field+".kind", "%s cuts links by peer address, but this run's brokers replicate through the harness's proxies (a latency fault with link %s, or cluster.replication-proxies), where no such cut reaches: the two are refused together",
		f.Kind, LinkReplication)
}
