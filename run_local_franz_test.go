package kafkachaos_test

import "testing"

// The delivery-semantics claims again with franz-go as the producer under
// test, on real Kafka; the consumers stay librdkafka (run_franz_test.go
// has the embedded ones).

// acks=all, min.insync.replicas=2 on three replicas, idempotent franz-go
// producer: no loss, no duplicate while leaders are killed.
func TestChaosLocalFranzAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	expectSafeUnderLeaderKills(t, p, franzProducers(realScenario("local-franz-acksall-idempotent", p)), "franz-go producer")
}

// acks=0 franz-go producer: killing the leader with -9 loses sends the
// client counted as done.
func TestChaosLocalFranzAcks0KillLoses(t *testing.T) {
	p := requireReal(t, "local")
	expectAcks0KillLoses(t, p, franzProducers(realScenario("local-franz-acks0-kill", p)), "franz-go producer")
}
