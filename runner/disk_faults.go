package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// diskFault makes the nemesis fault of a power-loss or disk-fault: the
// provider's DiskFaulter (Unsupported has refused providers without
// CapDisk), aimed at f's target with key 0's partition.
func (c ClusterFaults) diskFault(f generators.Fault) (nemesis.Fault, error) {
	df, ok := c.Provider.(cluster.DiskFaulter)
	if !ok {
		return nil, fmt.Errorf("fault %s needs the DiskFaulter hook, which cluster provider %q lacks", f.Kind, c.Provider.Name())
	}
	tg := c.keyTargeting()
	target := nemesis.Target(f.Params.DiskTarget(f.Kind))
	if f.Kind == generators.KindDiskFault {
		return nemesis.DiskFault(df, tg, target, f.Params.DiskMode()), nil
	}
	k, ok := c.Provider.(cluster.NodeKiller)
	if !ok {
		return nil, fmt.Errorf("fault %s restarts brokers with the NodeKiller hook, which cluster provider %q lacks", f.Kind, c.Provider.Name())
	}
	return nemesis.PowerLoss(df, k, tg, target), nil
}
