package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// replicationFault makes a latency fault on the brokers' replication
// proxies (Params.Link replication; cluster.ReplicationProxier) aimed at
// the target's nodes, with the toxic the clients' latency fault would put.
func (c ClusterFaults) replicationFault(f generators.Fault, tg nemesis.Targeting, target nemesis.Target) (nemesis.Fault, error) {
	rp, err := hook[cluster.ReplicationProxier](c.Provider, f.Kind+" on link "+f.Params.Link)
	if err != nil {
		return nil, err
	}
	return nemesis.ReplicationToxic(rp, tg, target, toxicOf(f.Params)), nil
}
