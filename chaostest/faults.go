package chaostest

import (
	"fmt"
	"maps"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/runner"
)

// schedule turns the faults into a nemesis schedule: cluster kinds as
// every run makes them (runner.ClusterFaults), the client crash kinds as
// crashes of the code under test.
func (r *run) schedule(sup *supervisor) (nemesis.Schedule, error) {
	cf := runner.ClusterFaults{Provider: r.prov, Scenario: outputTargeted(r.s), IntN: r.intN}
	if err := cf.Unsupported(); err != nil {
		return nil, fmt.Errorf("chaostest: %w", err)
	}
	var out nemesis.Schedule
	for i, f := range r.s.Nemesis {
		nf, err := cf.Fault(f)
		if nf == nil && err == nil {
			nf, err = codeFault(f, sup)
		}
		if err != nil {
			return nil, fmt.Errorf("chaostest: fault %d: %w", i, err)
		}
		out = append(out, runner.Steps(f, nf)...)
	}
	return out, nil
}

// codeFault is a client fault kind aimed at the code under test.
func codeFault(f generators.Fault, sup *supervisor) (nemesis.Fault, error) {
	switch f.Kind {
	case generators.KindCrashConsumer, generators.KindCrashProducer:
		return &crashFault{kind: f.Kind, sup: sup}, nil
	}
	return nil, fmt.Errorf("fault kind %q cannot act on code under test (crash-consumer and crash-producer crash it)", f.Kind)
}

// outputTargeted is s with key 0 on output partition 0, for the faults'
// targets (the leader, a minority...), which name key 0's partition: the
// code under test writes the output, so that partition's leader is the one
// whose failover can lose what the code was told was written.
func outputTargeted(s generators.Scenario) generators.Scenario {
	s.Keys.Map = maps.Clone(s.Keys.Map)
	s.Keys.Map["0"] = generators.TopicPartition{Topic: s.Keys.OutputTopic, Partition: 0}
	return s
}
