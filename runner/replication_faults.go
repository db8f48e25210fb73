package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// replicationFault makes a latency fault on the brokers' replication
// proxies (Params.Link replication; cluster.ReplicationProxier) aimed at
// the target's nodes, with the toxic the clients' latency fault would put.
func (c ClusterFaults) replicationFault(f generators.Fault, tg nemesis.Targeting, target nemesis.Target) (nemesis.Fault, error) {
	rp, ok := c.Provider.(cluster.ReplicationProxier)
	if !ok {
		return nil, fmt.Errorf("fault %s on link %s needs the ReplicationProxier hook, which cluster provider %q lacks",
			f.Kind, f.Params.Link, c.Provider.Name())
	}
	return nemesis.ReplicationToxic(rp, tg, target, toxicOf(f.Params)), nil
}
