package cluster

import (
	"context"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// ReplicationProxier puts toxics on the proxies between the brokers (kproxy),
// for a run whose Spec asked for them (ReplicationProxied): each broker's
// inter-broker listener is advertised at a proxy in the harness, so what a
// broker's peers send it (a follower's fetches from a leader) passes there.
// The clients, the admin client and the controller quorum stay direct.
type ReplicationProxier interface {
	// AddReplicationToxic puts t, called name, on node's replication proxy
	// and lists it back; a latency toxic is also timed by a probe.
	AddReplicationToxic(ctx context.Context, node int32, name string, t kproxy.Toxic) error
	// HealReplicationToxics removes every toxic of every replication proxy
	// and lists them back.
	HealReplicationToxics(ctx context.Context) error
}
