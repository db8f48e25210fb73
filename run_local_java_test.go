package kafkachaos_test

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// The delivery-semantics claims again with the Java client (kafka-clients
// in a JVM per producer) as the producer under test; the consumers, which
// only observe, stay librdkafka. The Java client is judged by the same
// model as librdkafka: the same config must give the same guarantee.

// javaScenario is realScenario with Java producers of kafka-clients
// version ("": the pinned release).
func javaScenario(name string, p realProfile, version string) generators.Scenario {
	s := realScenario(name, p)
	s.Clients = map[string]string{generators.RoleProducer: generators.ClientJava}
	s.ClientVersion = version
	return s
}

// javaKill is one kill -9 of the leader early in s. One, where the
// librdkafka claims have two: the JVM producer's start delays the schedule
// by seconds, and on loaded cores a killed broker's restart has taken 16 s,
// so a second kill would fall past the run's end.
func javaKill(s generators.Scenario) []generators.Fault {
	return []generators.Fault{faultAt(s, generators.KindKill, "leader", 0.1, 0.35)}
}

// acks=all, min.insync.replicas=2 on three replicas, idempotent Java
// producer: no loss, no duplicate while leaders are killed.
func TestChaosLocalJavaAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	s := javaScenario("local-java-acksall-idempotent", p, "")
	s.Workload.Consumers = 1
	s.Nemesis = javaKill(s)
	expectSafe(t, p, s, "java producer, acks=all, min.insync.replicas=2, RF 3, idempotent: no loss, no duplicate under kill -9 of the leader",
		50, checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets)
}

// acks=0 Java producer (kafka-clients 3.9.1, a release line apart from the
// brokers'): killing the leader with -9 loses sends the client counted as
// done.
func TestChaosLocalJavaAcks0KillLoses(t *testing.T) {
	p := requireReal(t, "local")
	s := javaScenario("local-java-acks0-kill", p, "3.9.1")
	s.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksNone, Retries: 0, MaxInFlight: 5}
	s.Workload.Rate = 1000
	s.Nemesis = javaKill(s)
	out := expectAnomaly(t, p, s, "java producer, acks=0 + kill -9 of the leader loses acknowledged sends", func(o runner.Outcome) bool { return lost(o) > 0 })
	if out.Dir != "" && !slices.Contains([]model.Guarantee{model.AtMostOnce, model.None}, out.Observed.Producer) {
		t.Errorf("loss found but producer hop observed %s", out.Observed.Producer)
	}
}

// acks=1 Java producer: writes the leader acknowledged before it was cut
// from its followers and replaced are truncated away (lost-write).
func TestChaosLocalJavaAcks1LeaderIsolatedLostWrite(t *testing.T) {
	p := requireReal(t, "local")
	s := javaScenario("local-java-acks1-isolated", p, "")
	s.Producer.ProducerConfig = model.LegacyDefaultProducer() // acks=1, retries, no idempotence
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindIsolateLeader, "", 0.05, 0.55), // past broker.session.timeout.ms (6 s): see the librdkafka claim
		faultAt(s, generators.KindKill, "leader", 0.65, 0.85),
	}
	expectAnomaly(t, p, s, "java producer, acks=1 + leader isolation/kill -> lost-write", func(o runner.Outcome) bool {
		return o.Result.Counts[checkers.LostWrite] > 0
	})
}
