package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// removeVoterFault makes the remove-voter fault on f's target (one
// controller by default; "controller" is the active one). The run's
// cluster has a dynamic quorum: the scenario asks for one
// (generators.Scenario.DynamicQuorum) whenever it has this kind.
func (c ClusterFaults) removeVoterFault(f generators.Fault) (nemesis.Fault, error) {
	h, err := hook[cluster.VoterChanger](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	return nemesis.RemoveVoter(h, c.keyTargeting(), targetOf(f, nemesis.TargetOne)), nil
}
