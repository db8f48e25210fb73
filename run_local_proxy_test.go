package kafkachaos_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/model"
)

// Faults on the clients' proxies (internal/kproxy): the cluster of these
// runs advertises a proxy per broker, so every request of the run's
// clients can be made late.

// 100 ms ± 10 ms on every client connection for the middle half of the
// run: Kafka's own degraded-network tests' figure. An idempotent acks=all
// producer stays exactly-once; its sends take at least the added latency.
func TestChaosLocalLatency(t *testing.T) { latencyClaim(t, requireReal(t, "local")) }

// latencyClaim is TestChaosLocalLatency on p's provider.
func latencyClaim(t *testing.T, p realProfile) {
	t.Helper()
	s := realScenario(p.provider+"-latency", p)
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindLatency, "all", 0.25, 0.75)}
	s.Nemesis[0].Params.Delay, s.Nemesis[0].Params.Jitter = d(100*time.Millisecond), d(10*time.Millisecond)
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
	q := a.out.Stats.Latency["send"]
	t.Logf("send latency with 100 ms ± 10 ms for half the run: p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d sends ok",
		q.P50, q.P99, q.Max, a.out.Stats.OpsByType["send ok"])
	if q.P99 < 90 {
		t.Errorf("send p99 %.1f ms under a 100 ms ± 10 ms latency toxic: the latency did not reach the clients", q.P99)
	}
}

// A transactional copier whose produce, EndTxn and TxnOffsetCommit
// requests are held for 1.5 s each (its other connections pass: the
// delayed-arrival shape of KAFKA-17754) while a broker is paused, on Kafka
// 4.x where KIP-890's transaction-version 2 fences late requests: the copy
// must stay exactly-once, and the hold must have held requests for the run
// to prove anything.
func TestChaosLocalDelayedRequestsTransactions(t *testing.T) {
	p := requireReal(t, "local")
	s := realScenario("local-delayed-requests-txn", p)
	s = s.TransactionalCopy(1, 0.2, 200)
	hold := faultAt(s, generators.KindDelayedRequests, "all", 0.2, 0.7)
	hold.Params.Requests, hold.Params.Delay = []string{"produce", "end-txn", "txn-offset-commit"}, d(1500*time.Millisecond)
	s.Nemesis = []generators.Fault{hold, faultAt(s, generators.KindPause, "one", 0.35, 0.5)}
	delayedTxnClaim(t, s)
}

// TestChaosLocalDelayedProduceOutlivesTheClient (full profile; make
// probe-kafka-17754 runs it on three releases) is KAFKA-17754's late
// produce with the client giving up first: the copier's produce requests
// are held 8 s (at most 6 per proxy, from 5 s to 20 s of a 25 s run), past
// its socket.timeout (2 s) and delivery.timeout (5 s), so each held
// request reaches the broker after librdkafka timed it out and aborted
// its transaction, often after the next one began.
//
// Before Kafka 3.6 a partition takes a transactional produce whatever the
// coordinator says of the transaction: the late batch of an aborted
// transaction opens a transaction on the partition that the producer's
// next commit marker ends, so the aborted copy is read (G1a) beside the
// copy the next transaction made again (duplicate). From 3.6 the
// partition asks the coordinator first (KIP-890 part 1) and refuses it:
// the copy stays exactly-once. The probe requires the one below 3.6 in
// one of its attempts and the other from 3.6 on.
func TestChaosLocalDelayedProduceOutlivesTheClient(t *testing.T) {
	p := requireFull(t, "local", "probe: full profile only (make probe-kafka-17754)")
	p.limit = 25 * time.Second
	s := realScenario("local-kafka-17754-probe", p)
	s = s.TransactionalCopy(1, 0.2, 200)
	s.Producer.SocketTimeout, s.Producer.DeliveryTimeout = d(2*time.Second), d(5*time.Second)
	hold := faultAt(s, generators.KindDelayedRequests, "all", 0.2, 0.8)
	hold.Params.Requests, hold.Params.Delay, hold.Params.Count = []string{"produce"}, d(8*time.Second), 6
	s.Nemesis = []generators.Fault{hold}
	verified, err := generators.KafkaAtLeast(kafkadist.Version(), "3.6")
	if err != nil {
		t.Fatal(err)
	}
	if verified {
		delayedTxnClaim(t, s)
		return
	}
	var seen []string
	for i := range p.attempts {
		a := runReal(t, s, i)
		if why := worked(a, 20); why != "" || hits(a.out) == 0 {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing (%s, %d requests held); %s", i+1, why, hits(a.out), a))
			continue
		}
		if c := a.out.Result.Counts; c[checkers.G1a] > 0 {
			t.Logf("KAFKA-17754 (late produce) REPRODUCED on Kafka %s with librdkafka, attempt %d of %d: %d aborted reads, %d duplicates; %s\n%s",
				kafkadist.Version(), i+1, p.attempts, c[checkers.G1a], c[checkers.Duplicate], a, weaker(a))
			return
		}
		seen = append(seen, fmt.Sprintf("attempt %d: %d requests held; %s", i+1, hits(a.out), a))
	}
	t.Errorf("the late produce was not committed by a later transaction on Kafka %s in %d attempts:\n  %s",
		kafkadist.Version(), p.attempts, strings.Join(seen, "\n  "))
}

// TestChaosLocalJavaLateProduce (full profile; make probe-kafka-17754 runs
// it on three releases) replays what a campaign of the txn space found on
// Kafka 3.3.2 with kafka-clients 3.8.0, shrunk: a Java copier's produce
// requests held 10.5 s, past its 10 s delivery timeout. The batch expires,
// the client aborts, bumps its epoch and copies the same records again in
// its next transaction; the held batch of the aborted one lands after the
// abort, opens a transaction on the partition, and the next commit marker
// ends it committed: the aborted copy is read (G1a) beside the new one
// (duplicate), KAFKA-17754's late produce with Jepsen's client.
//
// From 3.6 the partition asks the coordinator whether the transaction is
// open (KIP-890 part 1) and refuses the batch; on 4.x the 4.4.0 client's
// transaction version 2 fences it by epoch too. There the same run must
// hold. A run proves something only when a produce request was still
// unanswered when its transaction ended (results' late-requests).
func TestChaosLocalJavaLateProduce(t *testing.T) {
	p := requireFull(t, "local", "probe: full profile only (make probe-kafka-17754)")
	s, err := generators.Load("docs/evidence/kafka-17754-hunt/java-3.8.0-kafka-3.3.2/minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Cluster = "local-kafka-17754-java-late-produce", generators.Cluster{Provider: "local", Brokers: 3}
	verified, err := generators.KafkaAtLeast(kafkadist.Version(), "3.6")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(kafkadist.Version(), "4.") {
		s.ClientVersion = "4.4.0"
	}
	var seen []string
	for i := range p.attempts {
		a := runReal(t, s, i)
		late := a.out.Stats.LateRequests["Produce unanswered"] + a.out.Stats.LateRequests["Produce accepted"]
		if why := worked(a, 20); why != "" || late == 0 {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing (%s, %d produce requests still unanswered when their transaction ended); %s", i+1, why, late, a))
			continue
		}
		c := a.out.Result.Counts
		if verified {
			if !a.out.Held || c[checkers.G1a]+c[checkers.Duplicate] > 0 {
				t.Errorf("CLAIM BROKEN (a late produce is refused from 3.6) on Kafka %s with kafka-clients %s: %d aborted reads, %d duplicates; %s",
					kafkadist.Version(), s.ClientVersion, c[checkers.G1a], c[checkers.Duplicate], weaker(a))
			}
			t.Logf("CLAIM HELD on Kafka %s with kafka-clients %s: %d produce requests still unanswered when their transaction ended (%v); %s",
				kafkadist.Version(), s.ClientVersion, late, a.out.Stats.LateRequests, a)
			return
		}
		if c[checkers.G1a] > 0 {
			t.Logf("KAFKA-17754 (late produce) REPRODUCED on Kafka %s with kafka-clients %s, attempt %d of %d: %d aborted reads, %d duplicates, %d produce requests still unanswered when their transaction ended; %s\n%s",
				kafkadist.Version(), s.ClientVersion, i+1, p.attempts, c[checkers.G1a], c[checkers.Duplicate], late, a, weaker(a))
			return
		}
		seen = append(seen, fmt.Sprintf("attempt %d: %d produce requests still unanswered when their transaction ended; %s", i+1, late, a))
	}
	t.Errorf("no attempt proved anything, or the late produce was not committed, on Kafka %s with kafka-clients %s in %d attempts:\n  %s",
		kafkadist.Version(), s.ClientVersion, p.attempts, strings.Join(seen, "\n  "))
}

// delayedTxnClaim runs s, a transactional copy with a delayed-requests
// fault, and requires the hold to have held requests and the copy to stay
// exactly-once: any read of an aborted value, duplicate or loss is a
// finding.
func delayedTxnClaim(t *testing.T, s generators.Scenario) {
	t.Helper()
	a := runReal(t, s, 0)
	if why := worked(a, 20); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	held := hits(a.out)
	t.Logf("requests held: %d; %s", held, a)
	if held == 0 {
		t.Errorf("the hold held no request: the run proves nothing")
	}
	for _, an := range []checkers.Anomaly{checkers.G1a, checkers.Duplicate, checkers.DuplicateDelivery, checkers.LostDelivery,
		checkers.Unseen, checkers.LostWrite, checkers.PrecommittedRead} {
		if c := a.out.Result.Counts[an]; c > 0 {
			t.Errorf("FINDING: %d %s under delayed requests on a transactional copy; %s", c, an, a)
		}
	}
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
}

// TestChaosLocalJavaLateEndTxn is KAFKA-17754 on demand. Two Java txn
// queues run Jepsen's transactions (sends and read_committed polls across
// three keys, some aborted on purpose, pauses between steps) while the
// proxies hold every EndTxn, six per broker, for 8 s: four times the
// client's request timeout, so the client gives up, sends the EndTxn again
// on a new connection, has it answered and starts its next transaction
// before the held one reaches the coordinator.
//
// Transaction version 1 (Kafka 3.x, or any client before 4.0) names no
// transaction in an EndTxn, only the producer id and an epoch that stays
// the same from one transaction to the next: the late commit ends the
// transaction then open. When the client meant to abort that one, its
// writes are read (G1a, aborted read), and its own abort is refused
// (CONCURRENT_TRANSACTIONS, then INVALID_TXN_STATE in the request log);
// when it meant to go on, its own polls read the writes it has not yet
// committed (precommitted-read).
// Transaction version 2 (Kafka 4.x and a 4.x client: EndTxn v5) bumps the
// epoch at every transaction's end, so the late request is fenced: the
// same run holds.
//
// On a 3.x release it runs kafka-clients 3.8.0 (Jepsen's) and requires
// one of the two in one of its attempts; on 4.x it runs the 4.4.0 client
// and requires none. make probe-kafka-17754 runs it on both lines.
func TestChaosLocalJavaLateEndTxn(t *testing.T) {
	p := requireFull(t, "local", "probe: full profile only (make probe-kafka-17754)")
	p.limit = time.Minute
	s := realScenario("local-kafka-17754-late-endtxn", p)
	s.Keys = generators.SequentialKeys(3, "in", "")
	s.Cluster.ClientProxies = true
	s.Producer.TransactionalID = "queue"
	s.Producer.MaxInFlight = 5
	s.Producer.RequestTimeout, s.Producer.SocketTimeout, s.Producer.DeliveryTimeout = d(2*time.Second), d(2*time.Second), d(10*time.Second)
	s.Consumer.IsolationLevel = model.ReadCommitted
	w := &s.Workload
	w.Producers, w.Consumers, w.Rate = 0, 0, 100
	w.Mix = generators.Mix{Txn: 1}
	w.TxnQueues, w.TxnSize, w.AbortRatio, w.IntraTxnDelay = 2, 6, 0.12, d(200*time.Millisecond)
	hold := faultAt(s, generators.KindDelayedRequests, "all", 1.0/12, 10.0/12)
	hold.Params.Requests, hold.Params.Delay, hold.Params.Count = []string{"end-txn"}, d(8*time.Second), 6
	s.Nemesis = []generators.Fault{hold}
	tv1 := !strings.HasPrefix(kafkadist.Version(), "4.")
	s.Clients, s.ClientVersion = map[string]string{generators.RoleTxnQueue: generators.ClientJava}, "4.4.0"
	if tv1 {
		s.ClientVersion = "3.8.0"
	}
	var seen []string
	for i := range p.attempts {
		a := runReal(t, s, i)
		if why := worked(a, 0); why != "" {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing: %s; %s", i+1, why, a))
			continue
		}
		held := hits(a.out)
		if held == 0 {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing: no EndTxn was held; %s", i+1, a))
			continue
		}
		counts := a.out.Result.Counts
		if !tv1 {
			for _, an := range []checkers.Anomaly{checkers.G1a, checkers.PrecommittedRead, checkers.LostWrite, checkers.TornTransaction} {
				if c := counts[an]; c > 0 {
					t.Errorf("CLAIM BROKEN (transaction version 2 fences a late EndTxn) on attempt %d: %d %s; %s", i+1, c, an, weaker(a))
				}
			}
			seen = append(seen, fmt.Sprintf("attempt %d: %d EndTxn held; %s", i+1, held, a))
			continue
		}
		if counts[checkers.G1a]+counts[checkers.PrecommittedRead] > 0 {
			t.Logf("KAFKA-17754 REPRODUCED on Kafka %s with kafka-clients %s, attempt %d of %d: %d aborted reads, %d precommitted reads; %s\n%s",
				kafkadist.Version(), s.ClientVersion, i+1, p.attempts, counts[checkers.G1a], counts[checkers.PrecommittedRead], a, weaker(a))
			return
		}
		seen = append(seen, fmt.Sprintf("attempt %d: %d EndTxn held; %s", i+1, held, a))
	}
	if tv1 {
		t.Errorf("KAFKA-17754 not reproduced on Kafka %s in %d attempts:\n  %s", kafkadist.Version(), p.attempts, strings.Join(seen, "\n  "))
		return
	}
	if !t.Failed() {
		t.Logf("CLAIM HELD (transaction version 2 fences a late EndTxn) on Kafka %s:\n  %s", kafkadist.Version(), strings.Join(seen, "\n  "))
	}
}
