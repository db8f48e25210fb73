package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// diskFault makes a disk-fault: the provider's DiskFaulter (Unsupported
// has refused providers without CapDisk) failing f's target's disk, aimed
// with key 0's partition.
func (c ClusterFaults) diskFault(f generators.Fault) (nemesis.Fault, error) {
	df, err := hook[cluster.DiskFaulter](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	target := nemesis.Target(f.Params.DiskTarget(f.Kind))
	return nemesis.DiskFault(df, c.keyTargeting(), target, f.Params.DiskMode()), nil
}

// powerLoss makes a power-loss: f's target's brokers lose what their disks
// had not synced (DiskFaulter) and restart with the NodeKiller hook.
func (c ClusterFaults) powerLoss(f generators.Fault) (nemesis.Fault, error) {
	df, err := hook[cluster.DiskFaulter](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	k, err := hook[cluster.NodeKiller](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	target := nemesis.Target(f.Params.DiskTarget(f.Kind))
	return nemesis.PowerLoss(df, k, c.keyTargeting(), target), nil
}
