package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// The producer and consumer claims again with franz-go (kgo, in process)
// as the client under test, judged by the same model as librdkafka.

// franzProducers names franz-go for s's producers.
func franzProducers(s generators.Scenario) generators.Scenario {
	s.Clients = map[string]string{generators.RoleProducer: generators.ClientFranzGo}
	return s
}

// An idempotent franz-go producer whose acknowledgements are lost
// (applied, then answered with an error) and which is crashed and
// replaced along the way: its retries are deduplicated, so no value is
// written twice, and no acknowledged value is lost.
func TestChaosFranzProducerIdempotentLostAcksAndCrashes(t *testing.T) {
	parallelOnEmbedded(t)
	s := franzProducers(base("franz-idempotent", 4*time.Second))
	s.Nemesis = lostAcks(s)
	start, dur := window(s)
	s.Nemesis = append(s.Nemesis, generators.Fault{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(700 * time.Millisecond)}})
	out := run(t, s)
	mustHaveWorked(t, out, 50, "send")
	if hits(out) == 0 {
		t.Errorf("no acknowledgement was lost")
	}
	if out.Stats.Crashes == 0 {
		t.Errorf("no producer crashed")
	}
	for _, a := range []checkers.Anomaly{checkers.Duplicate, checkers.LostWrite, checkers.Unseen} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("idempotent franz-go producer: %d %s", n, a)
		}
	}
	wantHop(t, "producer", out.Observed.Producer, model.ExactlyOnce)
	t.Logf("%d lost acknowledgements, %d crashes -> no duplicate, no loss", hits(out), out.Stats.Crashes)
}

// Its negative control: without idempotence the same lost
// acknowledgements make franz-go's retries write values twice.
func TestChaosFranzProducerRetriesWithoutIdempotenceDuplicate(t *testing.T) {
	parallelOnEmbedded(t)
	s := franzProducers(base("franz-retries-no-idempotence", 3*time.Second))
	s.Producer.EnableIdempotence = false
	s.Producer.MaxInFlight = 1
	out := runLosingAcks(t, s)
	if out.Result.Counts[checkers.Duplicate] == 0 {
		t.Errorf("no duplicate found after %d lost acknowledgements", hits(out))
	}
	wantHop(t, "producer", out.Observed.Producer, model.AtLeastOnce)
}

// franzConsumers names franz-go for s's consumers.
func franzConsumers(s *generators.Scenario) {
	s.Clients = map[string]string{generators.RoleConsumer: generators.ClientFranzGo}
}

// franz-go group members committing before processing, crashed between
// the commit and the processing: the records they committed past are never
// processed (at most once).
func TestChaosFranzConsumerCommitBeforeProcessingLoses(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitBeforeProcessing, generators.CrashAfterCommit, franzConsumers)
	if out.Result.Counts[checkers.LostDelivery] == 0 {
		t.Errorf("no lost delivery after %d franz-go crashes between commit and processing", out.Stats.Crashes)
	}
	wantHop(t, "consumer", out.Observed.Consumer, model.AtMostOnce)
}

// Their control: committing after processing, crashed between the two,
// they redeliver and lose nothing (at least once).
func TestChaosFranzConsumerCommitAfterProcessingRedelivers(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitAfterProcessing, generators.CrashBeforeCommit, franzConsumers)
	if out.Result.Counts[checkers.DuplicateDelivery] == 0 {
		t.Errorf("no duplicate delivery after %d franz-go crashes between processing and commit", out.Stats.Crashes)
	}
	wantHop(t, "consumer", out.Observed.Consumer, model.AtLeastOnce)
}

// Where franz-go differs from librdkafka and the Java client: its
// automatic commits lag one poll (a poll's records become committable
// only when the next poll begins), so crashed auto-committing members
// lose nothing, where the others' lose what an automatic commit covered
// before it was processed (TestChaosConsumerAutoCommitLoses). The model
// promises nothing for auto-commit; this pins what kgo does.
func TestChaosFranzConsumerAutoCommitLosesNothing(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitAuto, generators.CrashAnywhere, franzConsumers, func(s *generators.Scenario) {
		s.Consumer.AutoCommitInterval = d(100 * time.Millisecond) // kgo's least
	})
	if out.Stats.OpsByType["commit ok"] == 0 {
		t.Errorf("no automatic commit was recorded")
	}
	if n := out.Result.Counts[checkers.LostDelivery]; n != 0 {
		t.Errorf("%d lost deliveries after %d crashes of franz-go auto-committing members", n, out.Stats.Crashes)
	}
	t.Logf("franz-go auto-commit under %d crashes: observed %s, %d duplicate deliveries",
		out.Stats.Crashes, out.Observed.Consumer, out.Result.Counts[checkers.DuplicateDelivery])
}

// Two franz-go txn queues (Jepsen's transactions: sends and read_committed
// polls over two keys, a third aborted on purpose), crashed and replaced
// every 400 ms: no committed transaction reads an aborted value (G1a) or
// one before its commit, loses a write or is torn; the crashed ones are
// info, and transactions both commit and abort.
func TestChaosFranzTxnQueueCrashes(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("franz-txn-queue-crashes", 4*time.Second)
	s.Producer.TransactionalID = "queue"
	s.Clients = map[string]string{generators.RoleTxnQueue: generators.ClientFranzGo}
	w := &s.Workload
	w.TxnQueues, w.TxnSize, w.AbortRatio, w.Mix.Txn = 2, 4, 0.3, 2
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(400 * time.Millisecond)}}}
	out := run(t, s)
	ops := out.Stats.OpsByType
	if ops["txn ok"] == 0 || ops["txn fail"] == 0 || ops["txn info"] == 0 {
		t.Errorf("want committed, aborted and crashed transactions: %v", ops)
	}
	for _, a := range []checkers.Anomaly{checkers.G1a, checkers.PrecommittedRead, checkers.LostWrite, checkers.TornTransaction,
		checkers.InterleavedTransaction} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("franz-go txn queues: %d %s", n, a)
		}
	}
	if !out.Held {
		t.Errorf("the guarantee did not hold: %v", out.Result.Counts)
	}
	t.Logf("%v; %d crashes", ops, out.Stats.Crashes)
}

// franz-go copiers (kgo's group transact session), a fifth of their
// transactions aborted on purpose, crashed and replaced every 500 ms: the
// copy stays exactly once (no duplicate, no loss, no aborted read).
func TestChaosFranzCopierCrashesExactlyOnce(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("franz-copier-crashes", 5*time.Second).TransactionalCopy(2, 0.2, 300)
	s.Producer.Acks, s.Producer.EnableIdempotence = model.AcksAll, true
	s.Clients = map[string]string{generators.RoleCopier: generators.ClientFranzGo}
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(500 * time.Millisecond)}}}
	out := run(t, s)
	ops := out.Stats.OpsByType
	if ops["txn ok"] == 0 || ops["txn fail"] == 0 || out.Stats.Crashes == 0 {
		t.Errorf("want committed and aborted transactions and crashes: %v, %d crashes", ops, out.Stats.Crashes)
	}
	wantHop(t, "end to end", out.Observed.EndToEnd, model.ExactlyOnce)
	t.Logf("%v; %d crashes", ops, out.Stats.Crashes)
}
