package model

// These tests encode, one by one, the delivery-semantics claims the harness
// was designed to test: a Chinese article on Kafka's delivery semantics
// (producer acks and retries, consumer offset commits, exactly-once end to
// end), cut off in the middle of its consumer section and not part of this
// repository. Each comment quotes the claim in English.
// Where Kafka has changed since the text was written (2019, Kafka 2.x), a
// second test says what holds now.

import "testing"

var (
	stable = Conditions{StableLeaders: true}
	faults = Conditions{}
	// seedConsumer is a consumer hop that neither loses nor duplicates, so
	// that a test can look at the producer hop through the end-to-end result.
	seedConsumer = ConsumerConfig{IsolationLevel: ReadCommitted, CommitStrategy: CommitTransactional}
)

// Claim: "at most once: a message may be lost, but is processed at most once;
// at least once: never lost, may be processed many times; exactly once:
// processed once and only once."
func TestSeedThreeSemanticsDefinitions(t *testing.T) {
	if !AtMostOnce.MayLose() || AtMostOnce.MayDuplicate() {
		t.Error("at-most-once: may lose, never duplicates")
	}
	if AtLeastOnce.MayLose() || !AtLeastOnce.MayDuplicate() {
		t.Error("at-least-once: never loses, may duplicate")
	}
	if ExactlyOnce.MayLose() || ExactlyOnce.MayDuplicate() {
		t.Error("exactly-once: neither")
	}
}

// Claim: "Kafka has two deliveries, producer to Kafka and consumer from
// Kafka; only if both are exactly-once is the result exactly-once; if either
// may lose or may duplicate, so may the result."
func TestSeedEndToEndNeedsBothHopsExactlyOnce(t *testing.T) {
	for _, p := range all {
		for _, c := range all {
			e2e := Meet(p, c)
			if (e2e == ExactlyOnce) != (p == ExactlyOnce && c == ExactlyOnce) {
				t.Errorf("Meet(%v, %v) = %v", p, c, e2e)
			}
			if e2e.MayLose() != (p.MayLose() || c.MayLose()) || e2e.MayDuplicate() != (p.MayDuplicate() || c.MayDuplicate()) {
				t.Errorf("Meet(%v, %v) = %v does not carry a hop's loss or duplication", p, c, e2e)
			}
		}
	}
	// The same through configurations: an exactly-once producer hop with an
	// at-least-once consumer hop is at-least-once end to end.
	e := expect(t, faults, DefaultProducer(), durableTopic, afterCommit)
	if e.Producer.Guarantee != ExactlyOnce || e.EndToEnd != AtLeastOnce {
		t.Errorf("EO producer + commit-after consumer: %v / %v", e.Producer.Guarantee, e.EndToEnd)
	}
}

// Claim: "acks=0: the producer ignores the broker's result, the callback is
// useless, sending is not guaranteed ... so acks=0 gives at most once."
func TestSeedAcks0IsAtMostOnce(t *testing.T) {
	for _, cond := range []Conditions{stable, faults} {
		for _, retries := range []int{0, 5} {
			p := ProducerConfig{Acks: AcksNone, Retries: retries, MaxInFlight: 1}
			if g := expect(t, cond, p, durableTopic, seedConsumer).Producer.Guarantee; g != AtMostOnce {
				t.Errorf("acks=0 retries=%d stable=%v: %v, want at-most-once", retries, cond.StableLeaders, g)
			}
		}
	}
}

// Claim: "acks=all (-1): the leader answers after every ISR replica has the
// message; as long as one ISR replica is alive nothing is lost."
// Kafka's documentation adds the condition the seed leaves implicit: the ISR
// must not be allowed to shrink to the leader alone (min.insync.replicas>=2)
// and no out-of-sync replica may be elected.
func TestSeedAcksAllWithLiveISRDoesNotLose(t *testing.T) {
	p := ProducerConfig{Acks: AcksAll, Retries: 0, MaxInFlight: 5}
	if e := expect(t, faults, p, durableTopic, seedConsumer); e.Producer.Guarantee.MayLose() {
		t.Errorf("acks=all rf=3 minISR=2 under broker faults: %v", e.Producer)
	}
	weak := TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 1}
	if e := expect(t, faults, p, weak, seedConsumer); !e.Producer.Guarantee.MayLose() {
		t.Errorf("acks=all with minISR=1: the ISR may be the leader alone, expected possible loss: %v", e.Producer)
	}
}

// Claim: "acks=1: the leader answers after its own write without waiting for
// the ISR; as long as the leader is alive nothing is lost."
// So acks=1 loses only if the leader dies.
func TestSeedAcks1LosesOnlyIfTheLeaderDies(t *testing.T) {
	p := ProducerConfig{Acks: AcksLeader, Retries: 0, MaxInFlight: 5}
	if e := expect(t, stable, p, durableTopic, seedConsumer); e.Producer.Guarantee.MayLose() {
		t.Errorf("acks=1 with a leader that lives: %v", e.Producer)
	}
	if e := expect(t, faults, p, durableTopic, seedConsumer); !e.Producer.Guarantee.MayLose() {
		t.Errorf("acks=1 when the leader may die: expected possible loss, got %v", e.Producer)
	}
}

// Claim: "as long as the cluster is stable and acks is not 0, no message is
// lost."
func TestSeedStableClusterAcksNot0DoesNotLose(t *testing.T) {
	weak := TopicConfig{ReplicationFactor: 1, MinInsyncReplicas: 1, UncleanLeaderElection: true}
	for _, acks := range []Acks{AcksLeader, AcksAll} {
		p := ProducerConfig{Acks: acks, Retries: 0, MaxInFlight: 1}
		if e := expect(t, stable, p, weak, seedConsumer); e.Producer.Guarantee.MayLose() {
			t.Errorf("stable cluster, acks=%v: %v", acks, e.Producer)
		}
	}
}

// Claim: "a write succeeds but the producer never gets the response because
// of the network, so it retries and the message is sent several times: that
// is at least once."
func TestSeedRetriesWithoutIdempotenceAreAtLeastOnce(t *testing.T) {
	p := ProducerConfig{Acks: AcksAll, Retries: 3, MaxInFlight: 1}
	if g := expect(t, faults, p, durableTopic, seedConsumer).Producer.Guarantee; g != AtLeastOnce {
		t.Errorf("acks=all retries=3 no idempotence: %v, want at-least-once", g)
	}
}

// The seed's own producer code: acks=all, retries=0. No loss of acknowledged
// records (on a durable topic) and no client resend: its producer hop is
// exactly-once for what it was told was written.
func TestSeedExampleProducerConfig(t *testing.T) {
	p := ProducerConfig{Acks: AcksAll, Retries: 0, MaxInFlight: 5}
	if g := expect(t, faults, p, durableTopic, seedConsumer).Producer.Guarantee; g != ExactlyOnce {
		t.Errorf("seed example producer: %v", g)
	}
}

// Claim: "the producer's acks default is 1, so the default producer is at
// least once, not exactly once." True of Kafka 2.1-2.8 (acks=1, retries
// unbounded, no idempotence) on a stable cluster: acks=1 keeps every
// acknowledged record while the leader lives, and retries may duplicate.
func TestSeedLegacyDefaultProducerIsAtLeastOnce(t *testing.T) {
	if g := expect(t, stable, LegacyDefaultProducer(), durableTopic, seedConsumer).Producer.Guarantee; g != AtLeastOnce {
		t.Errorf("legacy default producer, stable cluster: %v, want at-least-once", g)
	}
}

// Where the seed is incomplete: under broker failover the same legacy
// default may also lose (acks=1), so it promises nothing.
func TestLegacyDefaultProducerUnderFailoverIsNone(t *testing.T) {
	if g := expect(t, faults, LegacyDefaultProducer(), durableTopic, seedConsumer).Producer.Guarantee; g != None {
		t.Errorf("legacy default producer under failover: %v, want none", g)
	}
}

// Where modern Kafka differs: since 3.0 the default producer is acks=all
// with idempotence, so on a durable topic its hop is exactly-once even under
// broker failover, and the seed's "at least once by default" no longer holds.
func TestModernDefaultProducerIsExactlyOnceOnDurableTopic(t *testing.T) {
	if g := expect(t, faults, DefaultProducer(), durableTopic, seedConsumer).Producer.Guarantee; g != ExactlyOnce {
		t.Errorf("Kafka 3.0+ default producer: %v, want exactly-once", g)
	}
	// The broker's own defaults (replication 1, min ISR 1) still lose.
	brokerDefault := TopicConfig{ReplicationFactor: 1, MinInsyncReplicas: 1}
	if g := expect(t, faults, DefaultProducer(), brokerDefault, seedConsumer).Producer.Guarantee; g != AtMostOnce {
		t.Errorf("Kafka 3.0+ default producer on a broker-default topic: %v, want at-most-once", g)
	}
}

// Claim: "the consumer relies on offsets for its delivery guarantee", shown
// with enable.auto.commit=true, auto.commit.interval.ms=1000. The text is cut
// off before it says what auto-commit gives; Kafka's behaviour with
// librdkafka (offsets of records handed to the application committed from a
// background timer) is that a crash may lose or redeliver: none.
func TestSeedAutoCommitConsumer(t *testing.T) {
	c := ConsumerConfig{IsolationLevel: ReadUncommitted, CommitStrategy: CommitAuto}
	e := expect(t, faults, DefaultProducer(), durableTopic, c)
	if e.Consumer.Guarantee != None || e.EndToEnd != None {
		t.Errorf("auto-commit consumer: %v / %v, want none", e.Consumer.Guarantee, e.EndToEnd)
	}
}

// The full exactly-once pipeline the seed aims at: an exactly-once producer
// hop and a consumer that commits offsets inside its transaction and reads
// committed data.
func TestExactlyOnceEndToEnd(t *testing.T) {
	p := DefaultProducer()
	p.TransactionalID = "copier-1"
	if e := expect(t, faults, p, durableTopic, seedConsumer); e.EndToEnd != ExactlyOnce {
		t.Errorf("transactional pipeline: %v (%q)", e.EndToEnd, e.Reasons())
	}
}
