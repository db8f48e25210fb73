package kafkachaos_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// The delivery-semantics claims again with the Java client (kafka-clients
// in a JVM per client) as the producer under test, and in the last claim
// as the group consumer under test too; elsewhere the consumers, which
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
// producer: no loss, no duplicate while the leader is killed.
func TestChaosLocalJavaAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	expectSafeUnderLeaderKills(t, p, javaScenario("local-java-acksall-idempotent", p, ""), javaKill, "java producer")
}

// acks=0 Java producer (kafka-clients 3.9.1, a release line apart from the
// brokers'): killing the leader with -9 loses sends the client counted as
// done.
func TestChaosLocalJavaAcks0KillLoses(t *testing.T) {
	p := requireReal(t, "local")
	expectAcks0KillLoses(t, p, javaScenario("local-java-acks0-kill", p, "3.9.1"), javaKill, "java producer")
}

// expectSafeUnderLeaderKills runs s (a client's producers; one consumer)
// with acks=all, min.insync.replicas=2 on three replicas and idempotence,
// under kills: no loss, no duplicate.
func expectSafeUnderLeaderKills(t *testing.T, p realProfile, s generators.Scenario, kills func(generators.Scenario) []generators.Fault, who string) {
	t.Helper()
	s.Workload.Consumers = 1
	s.Nemesis = kills(s)
	expectSafe(t, p, s, who+", acks=all, min.insync.replicas=2, RF 3, idempotent: no loss, no duplicate under kill -9 of the leader",
		50, checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets)
}

// expectAcks0KillLoses runs s (a client's producers) with acks=0 and no
// retries under kills: sends the client counted as done are lost.
func expectAcks0KillLoses(t *testing.T, p realProfile, s generators.Scenario, kills func(generators.Scenario) []generators.Fault, who string) {
	t.Helper()
	s.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksNone, Retries: 0, MaxInFlight: 5}
	s.Workload.Rate = 1000
	s.Nemesis = kills(s)
	out := expectAnomaly(t, p, s, who+", acks=0 + kill -9 of the leader loses acknowledged sends", func(o runner.Outcome) bool { return lost(o) > 0 })
	if out.Dir != "" && !slices.Contains([]model.Guarantee{model.AtMostOnce, model.None}, out.Observed.Producer) {
		t.Errorf("loss found but producer hop observed %s", out.Observed.Producer)
	}
}

// acks=1 Java producer: writes the leader acknowledged before it was cut
// from its followers and replaced are truncated away (lost-write).
func TestChaosLocalJavaAcks1LeaderIsolatedLostWrite(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
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

// Java producers and Java group consumers (kafka-clients' KafkaConsumer),
// idempotent acks=all sends, commit after processing: under consumer
// crashes between processing and commit and kill -9 of the leader, nothing
// acknowledged is lost and nothing committed goes unprocessed (at least
// once; redeliveries allowed).
func TestChaosLocalJavaConsumerCommitAfterProcessingAtLeastOnce(t *testing.T) {
	p := requireReal(t, "local")
	s := javaConsumers(javaScenario("local-java-consumer-commit-after", p, ""))
	groupConsumers(&s, model.CommitAfterProcessing)
	// The consumer crashes come first: a killed broker's restart can hold
	// the schedule past the run's end (javaKill), and the JVMs' start
	// leaves the group formed only seconds into the run.
	crashes := faultAt(s, generators.KindCrashConsumer, "", 0.2, 0.5)
	crashes.Params = generators.FaultParams{Point: generators.CrashBeforeCommit, Every: d(3 * time.Second)}
	s.Nemesis = []generators.Fault{crashes, faultAt(s, generators.KindKill, "leader", 0.55, 0.75)}
	expectSafe(t, p, s, "java producer and consumer, acks=all idempotent, commit after processing: at least once under kill -9 of the leader and consumer crashes",
		50, checkers.LostWrite, checkers.Unseen, checkers.LostDelivery, checkers.Duplicate)
}

// Java group consumers with auto-commit: a member killed after an
// automatic commit (proven by the client) covered records it had not
// processed loses them, as librdkafka's do (at most once).
func TestChaosLocalJavaConsumerAutoCommitLoses(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	expectAutoCommitLoses(t, p, javaConsumers(javaScenario("local-java-consumer-auto-commit", p, "")), 3*time.Second, "java consumer")
}

// javaConsumers is s with Java consumers too.
func javaConsumers(s generators.Scenario) generators.Scenario {
	s.Clients[generators.RoleConsumer] = generators.ClientJava
	return s
}

// Java txn queues (kafka-clients 3.9.1; Jepsen's queue workload with
// transactions: several sends and read_committed polls across keys, a
// fifth aborted, half of them pausing up to 100 ms between their steps)
// while the broker coordinating their transactions is paused (SIGSTOP):
// no committed transaction reads an aborted value (G1a), loses a write or
// is torn.
func TestChaosLocalJavaTxnQueueCoordinatorPauseHolds(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := queuesUnderCoordinatorPause(realScenario("local-java-txn-queue-coordinator-pause", p))
	s.Clients, s.ClientVersion = map[string]string{generators.RoleTxnQueue: generators.ClientJava}, "3.9.1"
	expectQueuesHold(t, p, s, "java txn queues")
}

// queuesUnderCoordinatorPause is s with two txn queues over four keys
// (transactions of up to 4 sends and polls, a fifth aborted, half pausing
// up to 100 ms between their steps) and the txn coordinator paused.
func queuesUnderCoordinatorPause(s generators.Scenario) generators.Scenario {
	s.Keys = generators.SequentialKeys(4, "in", "")
	s.Producer.TransactionalID = "queue"
	w := &s.Workload
	w.TxnQueues, w.TxnSize, w.AbortRatio, w.Mix.Txn, w.IntraTxnDelay = 2, 4, 0.2, 2, d(100*time.Millisecond)
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindPause, generators.TargetTxnCoordinator, 0.3, 0.5)}
	return s
}

// expectQueuesHold runs s, whose txn queues are who's: transactions commit
// and abort, and none reads an aborted value (G1a), loses a write or is
// torn.
func expectQueuesHold(t *testing.T, p realProfile, s generators.Scenario, who string) {
	t.Helper()
	claim := who + " with intra-transaction pauses, txn coordinator paused: no G1a, lost-write or torn transaction"
	for i := range max(1, p.attempts-1) {
		a := runReal(t, s, i)
		if why := worked(a, 0); why != "" {
			t.Errorf("attempt %d proves nothing: %s; %s", i+1, why, a)
			continue
		}
		ops := a.out.Stats.OpsByType
		if ops["txn ok"] == 0 || ops["txn fail"] == 0 {
			t.Errorf("attempt %d: want committed and aborted transactions, got %v", i+1, ops)
		}
		for _, an := range []checkers.Anomaly{checkers.G1a, checkers.LostWrite, checkers.TornTransaction} {
			if c := a.out.Result.Counts[an]; c > 0 {
				t.Errorf("CLAIM BROKEN (%s) on attempt %d: %d %s; %s", claim, i+1, c, an, a)
			}
		}
		if !a.out.Held {
			t.Errorf("attempt %d: observed %s is weaker than expected %s: %s", i+1, a.out.Observed.EndToEnd, a.out.Expected.EndToEnd, a)
		}
		t.Logf("attempt %d: txn ops %d ok, %d fail, %d info", i+1, ops["txn ok"], ops["txn fail"], ops["txn info"])
	}
	if !t.Failed() {
		t.Logf("CLAIM HELD (%s)", claim)
	}
}

// Two Java group consumers, one's JVM stopped (SIGSTOP) for 3 s, past its
// session, and one consumer killed later: the stopped member wakes a
// zombie whose commits must fail until it rejoins, and the copy stays at
// least once. The JVM is a process of its own: no worker processes.
func TestChaosLocalJavaPausedConsumerZombie(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := javaConsumers(javaScenario("local-java-paused-consumer", p, ""))
	groupConsumers(&s, model.CommitAfterProcessing)
	pause := faultAt(s, generators.KindPauseClient, "", 0.2, 0.2)
	pause.Duration, pause.Params.Role = d(3*time.Second), generators.RoleConsumer
	s.Nemesis = []generators.Fault{pause, faultAt(s, generators.KindCrashConsumer, "", 0.7, 0.7)}
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	processesKilledAndGone(t, a.out, 1)
	t.Logf("the paused consumer after it woke: %s", afterResume(t, a.out, histories.FCommit))
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
}

// Java transactional copiers (two, subscribed to the copiers' group, a
// fifth of their transactions aborted on purpose), one of them crashed
// (SIGKILL of its JVM between the offsets and the commit; its successor's
// initTransactions fences what it left open) and the leader killed once:
// the copy is exactly-once, with no duplicate on the output, no record of
// the input delivered twice to the group, and no aborted copy read.
func TestChaosLocalJavaCopiersCrashAndKillExactlyOnce(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): the short profile has a safe and a weak claim per client")
	s := realScenario("local-java-copiers-crash-kill", p)
	s.Keys = generators.SequentialKeys(2, "in", "out")
	s.Producer.TransactionalID = "java-copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Clients = map[string]string{generators.RoleCopier: generators.ClientJava}
	w := &s.Workload
	w.Copiers, w.TxnSize, w.AbortRatio, w.Mix.Txn = 2, 5, 0.2, 2
	// crash-producer picks among the producer and the copiers: a few
	// crashes land one on a copier.
	crash := faultAt(s, generators.KindCrashProducer, "", 0.4, 0.8)
	crash.Params.Every = d(5 * time.Second)
	s.Nemesis = append(javaKill(s), crash)
	claim := "java transactional copiers, a copier crashed and the leader killed: exactly-once"
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	n := copierCrashes(t, a.out)
	if n == 0 {
		t.Fatalf("no copier crashed mid-transaction (crash-producer fell on the producer only): %s", a)
	}
	t.Logf("%d copiers crashed mid-transaction", n)
	for _, an := range []checkers.Anomaly{checkers.Duplicate, checkers.DuplicateDelivery, checkers.G1a} {
		if c := a.out.Result.Counts[an]; c > 0 {
			t.Errorf("CLAIM BROKEN (%s): %d %s; %s", claim, c, an, a)
		}
	}
	if a.out.Observed.EndToEnd != model.ExactlyOnce || !a.out.Held {
		t.Errorf("CLAIM BROKEN (%s): observed %s, expected %s; %s", claim, a.out.Observed.EndToEnd, a.out.Expected.EndToEnd, a)
	}
	if !t.Failed() {
		t.Logf("CLAIM HELD (%s)", claim)
	}
}

// copierCrashes counts the copiers of out that crashed mid-transaction:
// an info txn op followed by a crash op (SIGKILL) of the same process.
func copierCrashes(t *testing.T, out runner.Outcome) int {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	inTxn, n := map[int64]bool{}, 0
	for _, op := range ops {
		switch {
		case op.F == histories.FTxn && op.Type == histories.Info:
			inTxn[op.Process] = true
		case op.F == histories.FCrash && inTxn[op.Process] && strings.Contains(string(op.Value), "SIGKILL"):
			n++
		}
	}
	return n
}
