package explore

import (
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

func TestCoverageCountsEachKindOncePerDraw(t *testing.T) {
	s := generators.Scenario{
		Producer: generators.Producer{ProducerConfig: model.ProducerConfig{Acks: model.AcksLeader, Retries: 3}},
		Topic:    model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Consumer: generators.Consumer{ConsumerConfig: model.ConsumerConfig{CommitStrategy: model.CommitAuto}},
		Nemesis:  []generators.Fault{{Kind: generators.KindLostAck}, {Kind: generators.KindLostAck}, {Kind: generators.KindKill}},
	}
	c := NewCoverage([]string{generators.KindLostAck, generators.KindKill, generators.KindChurn})
	c.Add(s)
	c.Add(s)
	cfg := ConfigOf(s)
	if cfg != "acks=1 retries=3 isr=2 commit=auto" {
		t.Errorf("configuration %q", cfg)
	}
	if n := c.Count(cfg, generators.KindLostAck); n != 2 {
		t.Errorf("lost-ack cell %d, want 2 (two draws, each counted once)", n)
	}
	if n := c.Count(cfg, generators.KindChurn); n != 0 {
		t.Errorf("churn cell %d, want 0", n)
	}
	if v, rows, cols := c.Visited(); v != 2 || rows != 1 || cols != 3 {
		t.Errorf("visited %d of %d x %d, want 2 of 1 x 3", v, rows, cols)
	}
	var b strings.Builder
	c.Write(&b)
	want := "acks=1 retries=3 isr=2 commit=auto   2   2   .\n"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "k3=churn") ||
		!strings.Contains(b.String(), "visited 2 of 3 cells") {
		t.Errorf("table:\n%s\nwant a row %q, the legend and the visited line", b.String(), want)
	}
}

func TestConfigOfNamesTransactionsAndIdempotence(t *testing.T) {
	s := generators.Scenario{Producer: generators.Producer{ProducerConfig: model.ProducerConfig{Acks: model.AcksAll,
		Retries: 2147483647, EnableIdempotence: true, TransactionalID: "x"}},
		Topic:    model.TopicConfig{MinInsyncReplicas: 1},
		Consumer: generators.Consumer{ConsumerConfig: model.ConsumerConfig{CommitStrategy: model.CommitTransactional}}}
	if got, want := ConfigOf(s), "acks=all idem isr=1 commit=transactional txn"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
