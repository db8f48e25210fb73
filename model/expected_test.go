package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
)

var (
	durableTopic = TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2}
	afterCommit  = ConsumerConfig{IsolationLevel: ReadCommitted, CommitStrategy: CommitAfterProcessing}
	atLeastOnceP = ProducerConfig{Acks: AcksAll, Retries: 10, MaxInFlight: 1}
)

func expect(t *testing.T, cond Conditions, p ProducerConfig, tc TopicConfig, c ConsumerConfig) Expectation {
	t.Helper()
	e, err := ExpectedUnder(cond, p, tc, c)
	if err != nil {
		t.Fatalf("ExpectedUnder(%+v, %+v, %+v, %+v): %v", cond, p, tc, c, err)
	}
	if e.EndToEnd != Meet(e.Producer.Guarantee, e.Consumer.Guarantee) {
		t.Fatalf("end-to-end %v is not the meet of %v and %v", e.EndToEnd, e.Producer.Guarantee, e.Consumer.Guarantee)
	}
	if len(e.Producer.Reasons) == 0 || len(e.Consumer.Reasons) == 0 {
		t.Fatalf("a hop has no reasons: %+v", e)
	}
	return e
}

// TestAcksAllLosesOnWeakTopics: acks=all protects only when the topic keeps
// two in-sync copies and never elects an out-of-sync leader.
func TestAcksAllLosesOnWeakTopics(t *testing.T) {
	for _, tc := range []TopicConfig{
		{ReplicationFactor: 1, MinInsyncReplicas: 1},
		{ReplicationFactor: 3, MinInsyncReplicas: 1},
		{ReplicationFactor: 3, MinInsyncReplicas: 2, UncleanLeaderElection: true},
	} {
		e := expect(t, Conditions{}, atLeastOnceP, tc, afterCommit)
		if !e.Producer.Guarantee.MayLose() {
			t.Errorf("topic %+v: acks=all producer hop expected no loss", tc)
		}
	}
	if e := expect(t, Conditions{}, atLeastOnceP, durableTopic, afterCommit); e.Producer.Guarantee.MayLose() {
		t.Errorf("rf=3 minISR=2: %v", e.Producer)
	}
}

func TestIdempotenceRemovesProducerDuplicates(t *testing.T) {
	p := atLeastOnceP
	p.EnableIdempotence = true
	if g := expect(t, Conditions{}, p, durableTopic, afterCommit).Producer.Guarantee; g != ExactlyOnce {
		t.Errorf("idempotent acks=all producer on a durable topic: %v, want exactly-once", g)
	}
	p = atLeastOnceP
	p.TransactionalID = "tx-1"
	if g := expect(t, Conditions{}, p, durableTopic, afterCommit).Producer.Guarantee; g != ExactlyOnce {
		t.Errorf("transactional producer: %v, want exactly-once", g)
	}
}

func TestRetriesWithManyInFlightMentionReordering(t *testing.T) {
	p := atLeastOnceP
	p.MaxInFlight = 5
	e := expect(t, Conditions{}, p, durableTopic, afterCommit)
	if !strings.Contains(strings.Join(e.Producer.Reasons, "\n"), "reorder") {
		t.Errorf("reasons do not mention reordering: %q", e.Producer.Reasons)
	}
}

func TestConsumerHop(t *testing.T) {
	txP := ProducerConfig{Acks: AcksAll, Retries: 3, MaxInFlight: 5, TransactionalID: "t"}
	cases := []struct {
		name string
		p    ProducerConfig
		c    ConsumerConfig
		want Guarantee
	}{
		{"commit before processing may lose", atLeastOnceP, ConsumerConfig{ReadCommitted, CommitBeforeProcessing}, AtMostOnce},
		{"commit after processing may duplicate", atLeastOnceP, ConsumerConfig{ReadCommitted, CommitAfterProcessing}, AtLeastOnce},
		{"auto-commit may do both", atLeastOnceP, ConsumerConfig{ReadCommitted, CommitAuto}, None},
		{"offsets in the transaction with read_committed is exactly-once", txP, ConsumerConfig{ReadCommitted, CommitTransactional}, ExactlyOnce},
		{"offsets in the transaction with read_uncommitted may duplicate", txP, ConsumerConfig{ReadUncommitted, CommitTransactional}, AtLeastOnce},
		{"read_uncommitted of a transactional producer sees aborted records", txP, ConsumerConfig{ReadUncommitted, CommitBeforeProcessing}, None},
		{"read_uncommitted of a plain producer sees no aborts", atLeastOnceP, ConsumerConfig{ReadUncommitted, CommitBeforeProcessing}, AtMostOnce},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if g := expect(t, Conditions{}, c.p, durableTopic, c.c).Consumer.Guarantee; g != c.want {
				t.Errorf("consumer hop %v, want %v", g, c.want)
			}
		})
	}
}

func TestExpectedRejectsWhatKafkaRejects(t *testing.T) {
	bad := []struct {
		name string
		p    ProducerConfig
		t    TopicConfig
		c    ConsumerConfig
		want string
	}{
		{"acks=2", ProducerConfig{Acks: 2}, durableTopic, afterCommit, "acks=2"},
		{"idempotent with acks=1", ProducerConfig{Acks: AcksLeader, Retries: 1, EnableIdempotence: true}, durableTopic, afterCommit, "acks=all"},
		{"idempotent without retries", ProducerConfig{Acks: AcksAll, EnableIdempotence: true}, durableTopic, afterCommit, "retries"},
		{"transactional with 6 in flight", ProducerConfig{Acks: AcksAll, Retries: 1, MaxInFlight: 6, TransactionalID: "t"}, durableTopic, afterCommit, "at most 5"},
		{"negative retries", ProducerConfig{Acks: AcksAll, Retries: -1}, durableTopic, afterCommit, "negative"},
		{"rf=0", atLeastOnceP, TopicConfig{MinInsyncReplicas: 1}, afterCommit, "replication.factor"},
		{"no isolation", atLeastOnceP, durableTopic, ConsumerConfig{CommitStrategy: CommitAuto}, "isolation.level"},
		{"unknown strategy", atLeastOnceP, durableTopic, ConsumerConfig{IsolationLevel: ReadCommitted, CommitStrategy: "sometimes"}, "sometimes"},
	}
	for _, b := range bad {
		_, err := Expected(b.p, b.t, b.c)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one mentioning %q", b.name, err, b.want)
		}
	}
}

func TestConfigJSONUsesKafkaNames(t *testing.T) {
	b, err := json.Marshal(DefaultProducer())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"acks":"all","retries":2147483647,"enable.idempotence":true,"max.in.flight.requests.per.connection":5}`
	if string(b) != want {
		t.Errorf("marshal = %s\nwant %s", b, want)
	}
	var p ProducerConfig
	if err := json.Unmarshal([]byte(`{"acks":"-1","retries":3}`), &p); err != nil || p.Acks != AcksAll || p.Retries != 3 {
		t.Errorf("unmarshal acks=-1: %+v, %v", p, err)
	}
	if err := json.Unmarshal([]byte(`{"acks":"2"}`), &p); err == nil {
		t.Error("acks=2 accepted")
	}
}

func TestReasonsArePrefixedByHop(t *testing.T) {
	e := expect(t, Conditions{}, atLeastOnceP, durableTopic, afterCommit)
	rs := e.Reasons()
	if len(rs) != len(e.Producer.Reasons)+len(e.Consumer.Reasons) {
		t.Fatalf("Reasons() has %d lines", len(rs))
	}
	if !strings.HasPrefix(rs[0], "producer: ") || !strings.HasPrefix(rs[len(rs)-1], "consumer: ") {
		t.Errorf("Reasons() = %q", rs)
	}
}

// TestHeldByJudgesEachHop: an idempotent producer's duplicate breaks the
// producer hop even when the consumer hop (commit after processing) allows
// redeliveries and the end-to-end guarantees would satisfy each other.
func TestHeldByJudgesEachHop(t *testing.T) {
	idem := ProducerConfig{Acks: AcksAll, Retries: 10, MaxInFlight: 5, EnableIdempotence: true}
	e := expect(t, Conditions{}, idem, durableTopic, afterCommit)
	if e.EndToEnd != AtLeastOnce || e.Producer.Guarantee != ExactlyOnce {
		t.Fatalf("expected %v end to end, %v on the producer hop; the test needs at-least-once and exactly-once", e.EndToEnd, e.Producer.Guarantee)
	}
	cases := []struct {
		name   string
		found  []checkers.Anomaly
		breaks []string
	}{
		{"clean", nil, nil},
		{"redelivered", []checkers.Anomaly{checkers.DuplicateDelivery}, nil},
		{"producer duplicate", []checkers.Anomaly{checkers.Duplicate},
			[]string{"producer hop: expected exactly-once, observed at-least-once"}},
		{"lost delivery", []checkers.Anomaly{checkers.LostDelivery, checkers.DuplicateDelivery},
			[]string{"consumer hop: expected at-least-once, observed none"}},
		{"unknown", []checkers.Anomaly{"made-up"}, []string{"anomalies of unknown effect: [made-up]"}},
	}
	for _, c := range cases {
		o := Observe(result(c.found...))
		if !Satisfies(o.EndToEnd, e.EndToEnd) && c.name == "producer duplicate" {
			t.Fatalf("%s: the end-to-end guarantees do not satisfy each other; the case tests nothing", c.name)
		}
		if got := e.Breaks(o); !reflect.DeepEqual(got, c.breaks) {
			t.Errorf("%s: Breaks = %q, want %q", c.name, got, c.breaks)
		}
		if e.HeldBy(o) != (len(c.breaks) == 0) {
			t.Errorf("%s: HeldBy = %v with breaks %q", c.name, e.HeldBy(o), c.breaks)
		}
	}
}

// A copy pipeline's output duplicates may be the copier's redeliveries: an
// at-least-once copier's producer hop then allows duplicates, a
// transactional copy's does not.
func TestCopiedAllowsTheConsumerHopsDuplicatesOnTheOutput(t *testing.T) {
	idem := ProducerConfig{Acks: AcksAll, Retries: 10, MaxInFlight: 5, EnableIdempotence: true}
	plain := expect(t, Conditions{}, idem, durableTopic, afterCommit).Copied()
	if !plain.Producer.Guarantee.MayDuplicate() || plain.Producer.Guarantee.MayLose() {
		t.Errorf("at-least-once copy: producer hop %v, want at-least-once", plain.Producer.Guarantee)
	}
	if plain.HeldBy(Observe(result(checkers.Duplicate, checkers.DuplicateDelivery))) != true {
		t.Error("an at-least-once copy's output duplicates broke it")
	}
	txn := ProducerConfig{Acks: AcksAll, Retries: 10, MaxInFlight: 5, TransactionalID: "t"}
	exact := expect(t, Conditions{}, txn, durableTopic, ConsumerConfig{IsolationLevel: ReadCommitted, CommitStrategy: CommitTransactional})
	if exact.Copied().Producer.Guarantee != ExactlyOnce || exact.Copied().HeldBy(Observe(result(checkers.Duplicate))) {
		t.Error("a transactional copy allowed a duplicate")
	}
}

// A power loss of every replica takes the durability acks=all promises
// while one in-sync replica lives; without it the same configuration
// loses nothing.
func TestUnsyncedLossMayLose(t *testing.T) {
	p := ProducerConfig{Acks: AcksAll, Retries: 5, EnableIdempotence: true, MaxInFlight: 5}
	tc := TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2}
	for _, cond := range []Conditions{{}, {UnsyncedLoss: true}} {
		e, err := ExpectedUnder(cond, p, tc, afterCommit)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Producer.Guarantee.MayLose(); got != cond.UnsyncedLoss {
			t.Errorf("%+v: producer hop %s, may lose %v, want %v: %v", cond, e.Producer.Guarantee, got, cond.UnsyncedLoss, e.Producer.Reasons)
		}
	}
}

// A read_committed reader must never read a record of a transaction that
// aborted or had not committed, even where the consumer hop allows
// redeliveries (commit after processing): G1a and precommitted-read break
// it. A read_uncommitted reader's are the redeliveries its hop allows.
func TestReadCommittedRulesOutDirtyReads(t *testing.T) {
	txn := ProducerConfig{Acks: AcksAll, Retries: 10, MaxInFlight: 5, EnableIdempotence: true, TransactionalID: "t"}
	committed := afterCommit
	committed.IsolationLevel = ReadCommitted
	uncommitted := afterCommit
	uncommitted.IsolationLevel = ReadUncommitted
	rc, ru := expect(t, Conditions{}, txn, durableTopic, committed), expect(t, Conditions{}, txn, durableTopic, uncommitted)
	if !rc.ReadCommitted || ru.ReadCommitted || !rc.Consumer.Guarantee.MayDuplicate() || !ru.Consumer.Guarantee.MayDuplicate() {
		t.Fatalf("read_committed %+v, read_uncommitted %+v: the test needs both consumer hops to allow duplicates", rc, ru)
	}
	for _, a := range []checkers.Anomaly{checkers.G1a, checkers.PrecommittedRead} {
		o := Observe(result(a))
		want := []string{"read_committed: [" + string(a) + "], reads of records whose transaction or send failed or had not committed, which the isolation level rules out whatever either hop may duplicate"}
		if got := rc.Breaks(o); !reflect.DeepEqual(got, want) {
			t.Errorf("read_committed, %s: Breaks = %q, want %q", a, got, want)
		}
		if got := ru.Breaks(o); len(got) != 0 {
			t.Errorf("read_uncommitted, %s: Breaks = %q, want none (its hop allows the redelivery)", a, got)
		}
	}
	if got := rc.Breaks(Observe(result(checkers.DuplicateDelivery))); len(got) != 0 {
		t.Errorf("read_committed, a redelivery: Breaks = %q, want none", got)
	}
}

// A log that may lose records a group has read may leave the group's
// committed offset past its end: even offsets committed in the transaction
// then may redeliver and skip. Stable leaders truncate nothing.
func TestConsumerHopWhereTheLogMayTruncateReads(t *testing.T) {
	txP := ProducerConfig{Acks: AcksAll, Retries: 3, MaxInFlight: 5, TransactionalID: "t"}
	txC := ConsumerConfig{ReadCommitted, CommitTransactional}
	cases := []struct {
		name string
		cond Conditions
		t    TopicConfig
		want Guarantee
	}{
		{"durable topic", Conditions{}, durableTopic, ExactlyOnce},
		{"one replica", Conditions{}, TopicConfig{ReplicationFactor: 1, MinInsyncReplicas: 1}, None},
		{"one in-sync replica", Conditions{}, TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 1}, None},
		{"unclean election", Conditions{}, TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2, UncleanLeaderElection: true}, None},
		{"power loss of every replica", Conditions{UnsyncedLoss: true}, durableTopic, None},
		{"one replica, stable leaders", Conditions{StableLeaders: true}, TopicConfig{ReplicationFactor: 1, MinInsyncReplicas: 1}, ExactlyOnce},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := expect(t, c.cond, txP, c.t, txC).Consumer
			if h.Guarantee != c.want {
				t.Fatalf("consumer hop %v, want %v: %v", h.Guarantee, c.want, h.Reasons)
			}
			truncates := slices.ContainsFunc(h.Reasons, func(r string) bool { return strings.Contains(r, "past the log's end") })
			if truncates != (c.want == None) {
				t.Fatalf("reasons %v: naming the truncation %v, want %v", h.Reasons, truncates, c.want == None)
			}
		})
	}
}
