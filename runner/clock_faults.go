package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// clockFault makes a clock-skew fault: the offset (the generators' default
// when f names none) on Params.Nodes, or on Params.Target's brokers (one
// by default) resolved against key 0's partition.
func (c ClusterFaults) clockFault(f generators.Fault) (nemesis.Fault, error) {
	cs, err := hook[cluster.ClockSkewer](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	tg := c.keyTargeting()
	pick, name := aim(tg, f, nemesis.TargetOne)
	spec := nemesis.ClockSpec{Offset: f.Params.ClockOffset(), Strobe: f.Params.StrobePeriod()}
	return nemesis.ClockSkew(cs, tg, pick, name, spec), nil
}
