package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// reassignFault makes the reassign fault on key 0's partition. Unsupported
// has refused a provider without CapReassign before the run; a provider
// that lists it and lacks the hook is a bug named here.
func (c ClusterFaults) reassignFault(generators.Fault) (nemesis.Fault, error) {
	h, ok := c.Provider.(cluster.Reassigner)
	if !ok {
		return nil, fmt.Errorf("reassign needs the Reassigner hook, which cluster provider %q lacks", c.Provider.Name())
	}
	tp, ok := c.Scenario.Keys.Map["0"]
	if !ok {
		return nil, fmt.Errorf("reassign: the scenario has no key 0 whose partition it could move")
	}
	return nemesis.Reassign(h, nemesis.Targeting{Provider: c.Provider, Topic: tp.Topic, Partition: tp.Partition, IntN: c.IntN}), nil
}

// removeBrokerFault makes the remove-broker fault on f's target (one
// broker by default); targets resolve against key 0's partition.
func (c ClusterFaults) removeBrokerFault(f generators.Fault) (nemesis.Fault, error) {
	h, ok := c.Provider.(cluster.BrokerRemover)
	if !ok {
		return nil, fmt.Errorf("remove-broker needs the BrokerRemover hook, which cluster provider %q lacks", c.Provider.Name())
	}
	tg := nemesis.Targeting{Provider: c.Provider, IntN: c.IntN}
	if tp, ok := c.Scenario.Keys.Map["0"]; ok {
		tg.Topic, tg.Partition = tp.Topic, tp.Partition
	}
	target := nemesis.Target(f.Params.Target)
	if target == "" {
		target = nemesis.TargetOne
	}
	return nemesis.RemoveBrokerTarget(h, tg, target), nil
}

// addBrokerFault makes the add-broker fault: a new broker that takes one
// replica of key 0's partition for the window.
func (c ClusterFaults) addBrokerFault(f generators.Fault) (nemesis.Fault, error) {
	a, err := hook[cluster.BrokerAdder](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	r, err := hook[cluster.Reassigner](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	tg := c.keyTargeting()
	if tg.Topic == "" {
		return nil, fmt.Errorf("add-broker: the scenario has no key 0 whose partition could put a replica on the new broker")
	}
	return nemesis.AddBroker(a, r, tg), nil
}
