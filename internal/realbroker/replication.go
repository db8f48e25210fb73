package realbroker

import (
	"fmt"
	"strings"
)

// Replication cuts drop only the traffic between two brokers that uses the
// broker listener (followers fetching from leaders, and anything else one
// broker asks another on that port), while the KRaft controller listener
// and the clients' connections stay up. With combined broker+controller
// nodes, a full partition of the leader from its followers also cuts it
// from the controller quorum, so the leader is fenced; cutting only
// replication lets it stay leader and shrink its ISR instead.

// Chains of a namespace's kafkachaos table that hold replication cuts: the
// input and output hooks jump to them, and only they are rewritten, so
// partitions (the blocked set) and packet loss are untouched.
const (
	ReplicationInChain  = "replication_in"
	ReplicationOutChain = "replication_out"
)

// CheckBrokerLinks is CheckLinks for replication cuts: the clients are not
// a broker, so they have no replication traffic to cut.
func CheckBrokerLinks(links [][2]int32, nodes []int32) error {
	for _, l := range links {
		if l[0] == ClientNode || l[1] == ClientNode {
			return fmt.Errorf("replication cut %v names the clients: only links between brokers carry replication", l)
		}
	}
	return CheckLinks(links, nodes)
}

// ReplicationRules is the nft script that makes a namespace's replication
// chains (in table "inet <table>") drop exactly the broker-listener traffic
// to and from peers: packets whose peer address is one of peers and whose
// TCP port on either end is port, in both directions, so that neither side
// can fetch from the other. No peers renders the flushes alone: the heal.
// Peers are addresses as nft spells them (dotted IPv4).
func ReplicationRules(table string, peers []string, port int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flush chain inet %s %s\n", table, ReplicationInChain)
	fmt.Fprintf(&b, "flush chain inet %s %s\n", table, ReplicationOutChain)
	if len(peers) == 0 {
		return b.String()
	}
	set := "{ " + strings.Join(peers, ", ") + " }"
	// dport on input: a peer connecting to our listener; sport on input:
	// answers from a peer's listener we connected to. Output mirrors it.
	for _, r := range []struct{ chain, addr, dir string }{
		{ReplicationInChain, "saddr", "dport"},
		{ReplicationInChain, "saddr", "sport"},
		{ReplicationOutChain, "daddr", "dport"},
		{ReplicationOutChain, "daddr", "sport"},
	} {
		fmt.Fprintf(&b, "add rule inet %s %s ip %s %s tcp %s %d drop\n", table, r.chain, r.addr, set, r.dir, port)
	}
	return b.String()
}
