package kafkachaos_test

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// The delivery-semantics claims again with franz-go as the producer under
// test, on real Kafka; the consumers stay librdkafka (run_franz_test.go
// has the embedded ones).

// acks=all, min.insync.replicas=2 on three replicas, idempotent franz-go
// producer: no loss, no duplicate while leaders are killed.
func TestChaosLocalFranzAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	s := franzProducers(realScenario("local-franz-acksall-idempotent", p))
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindKill, "leader", 0.1, 0.35),
		faultAt(s, generators.KindKill, "leader", 0.5, 0.75),
	}
	expectSafe(t, p, s, "franz-go producer, acks=all, min.insync.replicas=2, RF 3, idempotent: no loss, no duplicate under kill -9 of the leader",
		50, checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets)
}

// acks=0 franz-go producer: killing the leader with -9 loses sends the
// client counted as done.
func TestChaosLocalFranzAcks0KillLoses(t *testing.T) {
	p := requireReal(t, "local")
	s := franzProducers(realScenario("local-franz-acks0-kill", p))
	s.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksNone, Retries: 0, MaxInFlight: 5}
	s.Workload.Rate = 1000
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindKill, "leader", 0.15, 0.35),
		faultAt(s, generators.KindKill, "leader", 0.5, 0.7),
	}
	out := expectAnomaly(t, p, s, "franz-go producer, acks=0 + kill -9 of the leader loses acknowledged sends", func(o runner.Outcome) bool { return lost(o) > 0 })
	if out.Dir != "" && !slices.Contains([]model.Guarantee{model.AtMostOnce, model.None}, out.Observed.Producer) {
		t.Errorf("loss found but producer hop observed %s", out.Observed.Producer)
	}
}
