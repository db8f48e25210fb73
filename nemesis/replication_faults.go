package nemesis

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// replicationProxies names the replication proxies in a fault's op.
const replicationProxies = "the brokers' replication proxies (what the target's peers send it: a follower's fetches from it)"

// ReplicationToxic puts t on the replication proxies of the target's nodes
// for the window (the latency kind on link replication): on the upstream
// stream, every request the target's peers send it on the inter-broker
// listener arrives late, above all the followers' fetches when the target
// leads, so an acks=all produce waits for them. The controller quorum and
// the clients stay direct. Heal removes every toxic of every replication
// proxy and lists them back.
func ReplicationToxic(rp cluster.ReplicationProxier, tg Targeting, target Target, t kproxy.Toxic) Fault {
	return toxicFault(rp.AddReplicationToxic, rp.HealReplicationToxics, replicationProxies, tg, target, t)
}
