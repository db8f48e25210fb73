package runner

import (
	"fmt"
	"reflect"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// What every fault kind's maker opens with, so that a kind file keeps only
// its own lines: the provider's hook, the partition targets resolve
// against, and the brokers the fault aims at.

// hook is the provider's hook T for a fault of kind (which may carry more,
// "latency on link replication"), or an error naming the hook the provider
// lacks. Unsupported refuses a provider without the kind's capability
// before the run; a provider that lists it and lacks the hook is a bug
// this names.
func hook[T any](p cluster.Provider, kind string) (T, error) {
	h, ok := p.(T)
	if !ok {
		return h, fmt.Errorf("fault %s needs the %s hook, which cluster provider %q lacks",
			kind, reflect.TypeFor[T]().Name(), p.Name())
	}
	return h, nil
}

// keyTargeting aims faults at key 0's partition (its leader is
// "leader"), or at no partition when the scenario has no key 0, and at
// the coordinators of the run's transactional id and group
// (Scenario.Coordinated).
func (c ClusterFaults) keyTargeting() nemesis.Targeting {
	tg := nemesis.Targeting{Provider: c.Provider, IntN: c.IntN}
	if tp, ok := c.Scenario.Keys.Map["0"]; ok {
		tg.Topic, tg.Partition = tp.Topic, tp.Partition
	}
	tg.TxnID, tg.Group = c.Scenario.Coordinated()
	return tg
}

// targetOf is f's Params.Target, or def when f names none.
func targetOf(f generators.Fault, def nemesis.Target) nemesis.Target {
	if f.Params.Target == "" {
		return def
	}
	return nemesis.Target(f.Params.Target)
}

// aim is what a kind that takes fixed nodes or a target acts on, and the
// name its op gives it: Params.Nodes when f names any ("nodes"), else
// targetOf(f, def) resolved against tg when the fault starts.
func aim(tg nemesis.Targeting, f generators.Fault, def nemesis.Target) (nemesis.Picker, string) {
	if len(f.Params.Nodes) > 0 {
		return nemesis.Nodes(f.Params.Nodes...), "nodes"
	}
	target := targetOf(f, def)
	return tg.Pick(target), string(target)
}
