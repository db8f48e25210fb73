package kafkachaos_test

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
)

// The delivery-semantics claims again with franz-go as the producer under
// test, on real Kafka; the consumers stay librdkafka (run_franz_test.go
// has the embedded ones).

// acks=all, min.insync.replicas=2 on three replicas, idempotent franz-go
// producer: no loss, no duplicate while leaders are killed.
func TestChaosLocalFranzAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	expectSafeUnderLeaderKills(t, p, franzProducers(realScenario("local-franz-acksall-idempotent", p)), twoLeaderKills, "franz-go producer")
}

// acks=0 franz-go producer: killing the leader with -9 loses sends the
// client counted as done.
func TestChaosLocalFranzAcks0KillLoses(t *testing.T) {
	p := requireReal(t, "local")
	expectAcks0KillLoses(t, p, franzProducers(realScenario("local-franz-acks0-kill", p)), twoLeaderKills, "franz-go producer")
}

// twoLeaderKills is two kill -9s of the leader in s, as the librdkafka
// claims have: franz-go starts in process, so both fit the run.
func twoLeaderKills(s generators.Scenario) []generators.Fault {
	return []generators.Fault{
		faultAt(s, generators.KindKill, "leader", 0.1, 0.35),
		faultAt(s, generators.KindKill, "leader", 0.5, 0.75),
	}
}
