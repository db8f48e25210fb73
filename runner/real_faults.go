package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// realFault makes the nemesis fault for a scenario fault that needs real
// brokers: the kinds of generators/real_kinds.go, partitions, and kills or
// pauses aimed at a Params.Target (the leader, the controller, a
// majority...). It returns nil, nil for every other fault, which Fault
// makes. Targets resolve against key 0's partition, with the run's seed.
func (c ClusterFaults) realFault(f generators.Fault) (nemesis.Fault, error) {
	spec := nemesis.RealSpec{Target: nemesis.Target(f.Params.Target), Percent: f.Params.Percent,
		BitsPerSecond: f.Params.BitsPerSecond, Settle: f.Params.Delay.D()}
	switch f.Kind {
	case generators.KindKill, generators.KindPause:
		if f.Params.Target == "" {
			return nil, nil // fixed or seeded nodes: Fault's picker
		}
		spec.Kind = f.Kind
	case generators.KindPartition:
		spec.Kind = nemesis.RealHalves
		if f.Params.Target != "" {
			spec.Kind = nemesis.RealIsolate
		}
	case generators.KindCleanRestart, generators.KindRollingRestart, generators.KindIsolateLeader,
		generators.KindBridge, generators.KindCutClients, generators.KindPacketLoss, generators.KindSlowLink,
		generators.KindIsolateLeaderReplication:
		spec.Kind = f.Kind // generators spells these as nemesis does
	default:
		return nil, nil
	}
	tp, ok := c.Scenario.Keys.Map["0"]
	if !ok {
		return nil, fmt.Errorf("%s: the scenario has no key 0 whose leader a target could name", f.Kind)
	}
	tg := nemesis.Targeting{Provider: c.Provider, Topic: tp.Topic, Partition: tp.Partition, IntN: c.IntN}
	return nemesis.Real(tg, spec)
}
