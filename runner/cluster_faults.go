package runner

import (
	"context"
	"errors"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// ClusterFaults makes the nemesis faults of a scenario's cluster fault
// kinds (every kind with a capability; the client kinds act on a run's
// own workers) against a started provider. A run's schedule uses it, and so does a harness that brings
// its own clients (chaostest), so that a fault kind means one thing
// wherever a scenario names it.
type ClusterFaults struct {
	Provider cluster.Provider
	// Scenario's key 0 is the partition whose leader targets name.
	Scenario generators.Scenario
	// IntN picks nodes, seeded by the run; it must be safe for
	// concurrent use.
	IntN func(n int) int
}

// Unsupported is the first fault of the scenario that the started
// provider cannot inject, as an *UnsupportedFault, or nil: a run without
// the faults its scenario names would prove nothing.
func (c ClusterFaults) Unsupported() error {
	return unsupported(c.Provider, c.Scenario, func(cluster.Capability) bool { return true })
}

// Fault makes f's nemesis fault with its kind's builder (clusterBuilders),
// or nil and no error when f is a client fault. It relies on Unsupported
// having found nothing.
func (c ClusterFaults) Fault(f generators.Fault) (nemesis.Fault, error) {
	build, ok := clusterBuilders()[f.Kind]
	if !ok {
		return nil, nil
	}
	return build(c, f)
}

// picker is the fault's nodes, or one node that is up chosen by the seed.
func (c ClusterFaults) picker(f generators.Fault) nemesis.Picker {
	if len(f.Params.Nodes) > 0 {
		return nemesis.Nodes(f.Params.Nodes...)
	}
	return func(context.Context) ([]int32, error) {
		var up []int32
		for _, n := range c.Provider.Nodes() {
			if n.Up {
				up = append(up, n.ID)
			}
		}
		if len(up) == 0 {
			return nil, errors.New("no node is up")
		}
		return []int32{up[c.IntN(len(up))]}, nil
	}
}
