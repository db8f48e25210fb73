package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// reassignFault makes the reassign fault on key 0's partition. Unsupported
// has refused a provider without CapReassign before the run; a provider
// that lists it and lacks the hook is a bug named here.
func (c ClusterFaults) reassignFault() (nemesis.Fault, error) {
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
