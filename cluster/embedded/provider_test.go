package embedded

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/cluster"
)

// startCluster starts a 3-broker embedded cluster with one topic and stops
// it when the test ends.
func startCluster(t *testing.T, topics ...cluster.TopicSpec) *Provider {
	t.Helper()
	e := New()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Start(ctx, cluster.Spec{RunID: t.Name(), Topics: topics}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	return e
}

func newProducer(t *testing.T, bootstrap string, extra kafka.ConfigMap) *kafka.Producer {
	t.Helper()
	cfg := kafka.ConfigMap{"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0, "log_level": 3}
	for k, v := range extra {
		cfg[k] = v
	}
	p, err := kafka.NewProducer(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// produceSync sends one value and waits for its delivery report.
func produceSync(t *testing.T, p *kafka.Producer, topic string, part int32, v int) kafka.TopicPartition {
	t.Helper()
	dr := make(chan kafka.Event, 1)
	msg := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: part}, Value: []byte(strconv.Itoa(v))}
	if err := p.Produce(msg, dr); err != nil {
		t.Fatal(err)
	}
	m := (<-dr).(*kafka.Message)
	if m.TopicPartition.Error != nil {
		t.Fatalf("delivery of %d: %v", v, m.TopicPartition.Error)
	}
	return m.TopicPartition
}

// readValues reads n values from c, failing after a deadline.
func readValues(t *testing.T, c *kafka.Consumer, n int) []string {
	t.Helper()
	var got []string
	deadline := time.Now().Add(15 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		m, err := c.ReadMessage(200 * time.Millisecond)
		if err != nil {
			if e, ok := err.(kafka.Error); ok && e.IsTimeout() {
				continue
			}
			t.Fatal(err)
		}
		got = append(got, string(m.Value))
	}
	if len(got) != n {
		t.Fatalf("read %d values %v, want %d", len(got), got, n)
	}
	return got
}

func TestEmbeddedStartsTopicsAndNodes(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 4, ReplicationFactor: 3, MinInsyncReplicas: 2})
	nodes := e.Nodes()
	if len(nodes) != 3 {
		t.Fatalf("nodes = %v, want 3", nodes)
	}
	for p := int32(0); p < 4; p++ {
		l, err := e.Leader(context.Background(), "t", p)
		if err != nil || l < 0 || l > 2 {
			t.Fatalf("leader of t/%d = %d, %v", p, l, err)
		}
	}
	if _, err := e.Leader(context.Background(), "t", 4); err == nil {
		t.Fatal("leader of a missing partition: no error")
	}
	if err := e.CreateTopics(context.Background(), cluster.TopicSpec{Name: "t", Partitions: 1}); err == nil {
		t.Fatal("creating an existing topic: no error")
	}
}

// TestConfluentAgainstEmbedded proves that confluent-kafka-go (librdkafka)
// produces, consumes by assignment and consumes in a group against kfake.
func TestConfluentAgainstEmbedded(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 2})
	p := newProducer(t, e.Bootstrap(), kafka.ConfigMap{"enable.idempotence": true})
	for i := range 10 {
		tp := produceSync(t, p, "t", int32(i%2), i)
		if want := int64(i / 2); int64(tp.Offset) != want {
			t.Fatalf("value %d at offset %d, want %d", i, tp.Offset, want)
		}
	}

	c, err := kafka.NewConsumer(&kafka.ConfigMap{
		"bootstrap.servers": e.Bootstrap(), "log_level": 3, "group.id": "g", "auto.offset.reset": "earliest",
		"session.timeout.ms": 6000, "enable.auto.commit": false,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe("t", nil); err != nil {
		t.Fatal(err)
	}
	readValues(t, c, 10)
	if _, err := c.Commit(); err != nil {
		t.Fatalf("group commit: %v", err)
	}
	topic := "t"
	committed, err := c.Committed([]kafka.TopicPartition{{Topic: &topic, Partition: 0}, {Topic: &topic, Partition: 1}}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range committed {
		if tp.Offset != 5 {
			t.Fatalf("committed %v, want offset 5", tp)
		}
	}
}

// TestConfluentTransactionsAgainstEmbedded proves that an aborted
// transaction is invisible to read_committed and a committed one is visible:
// kfake writes real transaction markers.
func TestConfluentTransactionsAgainstEmbedded(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	p := newProducer(t, e.Bootstrap(), kafka.ConfigMap{"transactional.id": "tx-1"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.InitTransactions(ctx); err != nil {
		t.Fatal(err)
	}
	for i, commit := range []bool{false, true} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		// Wait for delivery so the record reaches the log before the
		// abort: AbortTransaction purges what was never sent.
		produceSync(t, p, "t", 0, i)
		var err error
		if commit {
			err = p.CommitTransaction(ctx)
		} else {
			err = p.AbortTransaction(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := kafka.NewConsumer(&kafka.ConfigMap{
		"bootstrap.servers": e.Bootstrap(), "log_level": 3, "group.id": "r", "isolation.level": "read_committed",
		"auto.offset.reset": "earliest", "enable.auto.commit": false,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	topic := "t"
	if err := c.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
		t.Fatal(err)
	}
	got := readValues(t, c, 1)
	if got[0] != "1" {
		t.Fatalf("read_committed saw %v, want only the committed value 1", got)
	}
	_, high, err := c.QueryWatermarkOffsets("t", 0, 5000)
	if err != nil {
		t.Fatal(err)
	}
	// aborted record, abort marker, committed record, commit marker
	if high != 4 {
		t.Fatalf("high watermark %d, want 4 (two records and two markers)", high)
	}
}
