package runner

import (
	"context"
	"errors"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// ClusterFaults makes the nemesis faults of a scenario's cluster fault
// kinds (every kind but the client faults crash-producer, crash-consumer
// and churn, which act on a run's own workers) against a started
// provider. A run's schedule uses it, and so does a harness that brings
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

// Fault makes f's nemesis fault, or nil and no error when f is a client
// fault. It relies on Unsupported having found nothing.
func (c ClusterFaults) Fault(f generators.Fault) (nemesis.Fault, error) {
	if nf, err := c.realFault(f); nf != nil || err != nil {
		return nf, err
	}
	sel := cluster.RequestFault{Probability: f.Params.Probability}
	switch f.Kind {
	case generators.KindLostAck:
		sel.Keys = []int16{0} // produce
		return nemesis.LostAck(c.Provider.(cluster.RequestFaulter), sel, kafkaRequestTimedOut), nil
	case generators.KindDelay:
		return nemesis.Delay(c.Provider.(cluster.RequestFaulter), sel, f.Params.Delay.D()), nil
	case generators.KindDrop:
		sel.Keys = []int16{0, 1} // produce and fetch
		return nemesis.DropConnections(c.Provider.(cluster.RequestFaulter), sel), nil
	case generators.KindPowerLoss, generators.KindDiskFault:
		return c.diskFault(f)
	case generators.KindKill:
		return nemesis.Kill(c.Provider.(cluster.NodeKiller), c.picker(f)), nil
	case generators.KindPause:
		return nemesis.Pause(c.Provider.(cluster.NodePauser), c.picker(f)), nil
	case generators.KindLeaderShuffle:
		return nemesis.ShuffleLeaders(c.Provider.(cluster.LeaderMover)), nil
	case generators.KindReassign:
		return c.reassignFault()
	case generators.KindRemoveBroker:
		return c.removeBrokerFault(f)
	case generators.KindAddBroker:
		return c.addBrokerFault()
	case generators.KindClockSkew:
		return c.clockFault(f)
	case generators.KindRemoveVoter:
		return c.removeVoterFault(f)
	}
	return nil, nil
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
