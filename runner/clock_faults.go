package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// clockFault makes a clock-skew fault: the offset (the generators' default
// when f names none) on Params.Nodes, or on Params.Target's brokers (one
// by default) resolved against key 0's partition.
func (c ClusterFaults) clockFault(f generators.Fault) (nemesis.Fault, error) {
	cs, ok := c.Provider.(cluster.ClockSkewer)
	if !ok {
		return nil, fmt.Errorf("fault %s needs the ClockSkewer hook, which cluster provider %q lacks", f.Kind, c.Provider.Name())
	}
	tg := c.keyTargeting()
	spec := nemesis.ClockSpec{Offset: f.Params.ClockOffset(), Strobe: f.Params.StrobePeriod()}
	if len(f.Params.Nodes) > 0 {
		return nemesis.ClockSkew(cs, tg, nemesis.Nodes(f.Params.Nodes...), "nodes", spec), nil
	}
	target := nemesis.Target(f.Params.Target)
	if target == "" {
		target = nemesis.TargetOne
	}
	return nemesis.ClockSkew(cs, tg, tg.Pick(target), string(target), spec), nil
}
