package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// diskFault makes the nemesis fault of a power-loss or disk-fault: the
// provider's DiskFaulter (Unsupported has refused providers without
// CapDisk), aimed at f's target with key 0's partition. A power loss
// restarts its brokers with the NodeKiller hook.
func (c ClusterFaults) diskFault(f generators.Fault) (nemesis.Fault, error) {
	df, err := hook[cluster.DiskFaulter](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	tg := c.keyTargeting()
	target := nemesis.Target(f.Params.DiskTarget(f.Kind))
	if f.Kind == generators.KindDiskFault {
		return nemesis.DiskFault(df, tg, target, f.Params.DiskMode()), nil
	}
	k, err := hook[cluster.NodeKiller](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	return nemesis.PowerLoss(df, k, tg, target), nil
}
