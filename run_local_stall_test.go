package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
)

// TestChaosLocalConsumerStall (full profile): TestChaosConsumerStall on real
// brokers, where Kafka's own group coordinator takes the evicted member's
// LeaveGroup, hands its partitions to the other member, and refuses the
// commit it makes on waking as the embedded cluster does (UNKNOWN_MEMBER_ID,
// recorded info and read back: seen so on Kafka 4.4.0). realbroker lowers
// group.min.session.timeout.ms to 1 s, so the 1 s session is accepted. A
// 12 s run: 4 s stalls of a 2 s max.poll.interval.
func TestChaosLocalConsumerStall(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): CI's short profile has no time for it")
	s := realScenario("local-consumer-stall", p)
	s.TimeLimit = d(12 * time.Second)
	s.Keys = generators.SequentialKeys(2, "in", "")
	s = stallScenario(s, 2*time.Second, 4*time.Second)
	s.Nemesis[0].Start = d(3 * time.Second) // real brokers' group joins take longer
	a := safeRun(t, s)
	checkStallRun(t, a.out)
	seen := checkEvicted(t, a.out)
	t.Logf("LOCAL STALL: %+v; evicted op %v; %d duplicate deliveries; %s", seen.detail, opIndex(seen.maxPollOp),
		a.out.Result.Counts[checkers.DuplicateDelivery], a)
}

// TestChaosLocalConsumerStallGroupProtocol: the stall under KIP-848 on
// real brokers (4.0+), with one consumer, so that the stalled member owns
// partitions: librdkafka enforces max.poll.interval.ms under either
// protocol, and Kafka's own coordinator takes its leave heartbeat and
// refuses the commit made on waking. CI runs it here, not on the embedded
// cluster: there kfake answered the rejoining member's heartbeat with
// INVALID_REQUEST in a loaded run (a fatal error to librdkafka), and in
// another the revocation came too late (docs/FINDINGS.md).
func TestChaosLocalConsumerStallGroupProtocol(t *testing.T) {
	p := requireReal(t, "local")
	s := realScenario("local-consumer-stall-group-protocol", p)
	s.TimeLimit = d(15 * time.Second)
	s.Keys = generators.SequentialKeys(2, "in", "")
	s = stallScenario(s, 2*time.Second, 4*time.Second)
	s.Consumer.GroupProtocol = generators.GroupConsumer
	s.Workload.Consumers = 1
	s.Nemesis[0].Start = d(3 * time.Second) // real brokers' group joins take longer
	a := safeRun(t, s)
	checkStallRun(t, a.out)
	seen := checkEvicted(t, a.out)
	t.Logf("LOCAL STALL KIP-848: %+v; evicted op %v, revoked op %v; %d duplicate deliveries; %s", seen.detail, opIndex(seen.maxPollOp),
		opIndex(seen.revokedOp), a.out.Result.Counts[checkers.DuplicateDelivery], a)
}
