package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// The delivery-semantics claims again with franz-go as the client under
// test, on real Kafka: its producers, and in the full profile its group
// consumers (run_franz_test.go has the embedded ones).

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

// franz-go producers and franz-go group consumers, idempotent acks=all
// sends, commit after processing: under consumer crashes between
// processing and commit and kill -9 of the leader, nothing acknowledged is
// lost and nothing committed goes unprocessed (at least once).
func TestChaosLocalFranzConsumerCommitAfterProcessingAtLeastOnce(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := franzProducers(realScenario("local-franz-consumer-commit-after", p))
	s.Clients[generators.RoleConsumer] = generators.ClientFranzGo
	groupConsumers(&s, model.CommitAfterProcessing)
	crashes := faultAt(s, generators.KindCrashConsumer, "", 0.2, 0.5)
	crashes.Params = generators.FaultParams{Point: generators.CrashBeforeCommit, Every: d(3 * time.Second)}
	s.Nemesis = []generators.Fault{crashes, faultAt(s, generators.KindKill, "leader", 0.55, 0.75)}
	expectSafe(t, p, s, "franz-go producer and consumer, acks=all idempotent, commit after processing: at least once under kill -9 of the leader and consumer crashes",
		50, checkers.LostWrite, checkers.Unseen, checkers.LostDelivery, checkers.Duplicate)
}

// franz-go txn queues (one kgo client each, producer and read_committed
// reader) under a pause of the txn coordinator, as the Java queues'
// claim: no G1a, lost write or torn transaction.
func TestChaosLocalFranzTxnQueueCoordinatorPauseHolds(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := queuesUnderCoordinatorPause(realScenario("local-franz-txn-queue-coordinator-pause", p))
	s.Clients = map[string]string{generators.RoleTxnQueue: generators.ClientFranzGo}
	expectQueuesHold(t, p, s, "franz-go txn queues")
}

// franz-go copiers (kgo's group transact session) under kills of the
// leader and the controller and a pause of one broker: the transactional
// copy stays exactly once, as librdkafka's does.
func TestChaosLocalFranzCopyExactlyOnce(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := realScenario("local-franz-copy", p).TransactionalCopy(1, 0.2, 200)
	s.Clients = map[string]string{generators.RoleCopier: generators.ClientFranzGo}
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindKill, "leader", 0.1, 0.3),
		faultAt(s, generators.KindPause, "one", 0.45, 0.6),
		faultAt(s, generators.KindKill, "controller", 0.7, 0.85),
	}
	expectSafe(t, p, s, "franz-go transactional copy: exactly once under kill and pause", 20,
		checkers.G1a, checkers.Duplicate, checkers.DuplicateDelivery, checkers.LostDelivery, checkers.Unseen, checkers.LostWrite)
}
