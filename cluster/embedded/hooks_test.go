package embedded

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
)

// produceResult sends one value and returns its delivery report.
func produceResult(t *testing.T, p *kafka.Producer, topic string, v int) kafka.TopicPartition {
	t.Helper()
	dr := make(chan kafka.Event, 1)
	msg := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte(strconv.Itoa(v))}
	if err := p.Produce(msg, dr); err != nil {
		t.Fatal(err)
	}
	return (<-dr).(*kafka.Message).TopicPartition
}

func highWatermark(t *testing.T, p *kafka.Producer, topic string) int64 {
	t.Helper()
	_, high, err := p.QueryWatermarkOffsets(topic, 0, 5000)
	if err != nil {
		t.Fatal(err)
	}
	return high
}

// TestErrorAfterApplyAppliesTheWrite checks the premise of the lost
// acknowledgement fault: the client is told the write failed, yet the record
// is in the log.
func TestErrorAfterApplyAppliesTheWrite(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	p := newProducer(t, e.Bootstrap(), kafka.ConfigMap{"retries": 0, "enable.idempotence": false})
	produceSync(t, p, "t", 0, 0) // metadata warm, offset 0
	f, err := e.ErrorAfterApply(cluster.RequestFault{Topic: "t"}, kerr.RequestTimedOut.Code)
	if err != nil {
		t.Fatal(err)
	}
	tp := produceResult(t, p, "t", 1)
	if tp.Error == nil {
		t.Fatal("delivery succeeded under error-after-apply")
	}
	if f.Hits() != 1 {
		t.Fatalf("hits = %d, want 1", f.Hits())
	}
	f.Remove()
	if high := highWatermark(t, p, "t"); high != 2 {
		t.Fatalf("high watermark %d after a failed ack, want 2: the write was not applied", high)
	}
	if tp := produceResult(t, p, "t", 2); tp.Error != nil {
		t.Fatalf("after removal: %v", tp.Error)
	}
	if _, err := e.ErrorAfterApply(cluster.RequestFault{}, kerr.NotLeaderForPartition.Code); err == nil {
		t.Fatal("an error answered before the write was accepted as after-apply")
	}
}

func TestDropConnectionsDoesNotApply(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	p := newProducer(t, e.Bootstrap(), kafka.ConfigMap{"retries": 0, "enable.idempotence": false})
	produceSync(t, p, "t", 0, 0)
	f, err := e.DropConnections(cluster.RequestFault{Keys: []int16{0}})
	if err != nil {
		t.Fatal(err)
	}
	if tp := produceResult(t, p, "t", 1); tp.Error == nil {
		t.Fatal("delivery succeeded through dropped connections")
	}
	f.Remove()
	if f.Hits() < 1 {
		t.Fatalf("hits = %d", f.Hits())
	}
	if high := highWatermark(t, p, "t"); high != 1 {
		t.Fatalf("high watermark %d, want 1: a dropped request was applied", high)
	}
}

func TestDelayHoldsRequests(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	p := newProducer(t, e.Bootstrap(), nil)
	produceSync(t, p, "t", 0, 0)
	f, err := e.Delay(cluster.RequestFault{Keys: []int16{0}}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	produceSync(t, p, "t", 0, 1)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("produce took %v under a 300ms delay", d)
	}
	f.Remove()
	start = time.Now()
	produceSync(t, p, "t", 0, 2)
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Fatalf("produce took %v after the delay was removed", d)
	}
}

func TestKillRestartAndPause(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	ctx := context.Background()
	p := newProducer(t, e.Bootstrap(), kafka.ConfigMap{"message.timeout.ms": 20000})
	produceSync(t, p, "t", 0, 0)
	leader, _ := e.Leader(ctx, "t", 0)
	if err := e.Kill(ctx, leader); err != nil {
		t.Fatal(err)
	}
	if l, _ := e.Leader(ctx, "t", 0); l == leader {
		t.Fatalf("leader still %d after its kill", l)
	}
	if n := e.Nodes()[leader]; n.Up {
		t.Fatalf("killed node %v reported up", n)
	}
	produceSync(t, p, "t", 0, 1) // the client finds the new leader
	if err := e.Restart(ctx, leader); err != nil {
		t.Fatal(err)
	}
	if err := e.MoveLeader(ctx, "t", 0, leader); err != nil {
		t.Fatal(err)
	}
	produceSync(t, p, "t", 0, 2) // the restarted node serves again

	if err := e.Pause(ctx, leader); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { e.Resume(ctx, leader) })
	start := time.Now()
	produceSync(t, p, "t", 0, 3)
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("produce to a paused leader took only %v", d)
	}
	if err := e.Kill(ctx, 9); err == nil {
		t.Fatal("kill of a missing node: no error")
	}
}

// The node hooks refuse before Start, name the hook and the node when it is
// not one of the cluster's, and are idempotent on a node already in the
// state asked for.
func TestNodeHooksRefuseAndRepeat(t *testing.T) {
	ctx := context.Background()
	hooks := map[string]func(*Provider, int32) error{
		"kill":    func(e *Provider, n int32) error { return e.Kill(ctx, n) },
		"restart": func(e *Provider, n int32) error { return e.Restart(ctx, n) },
		"pause":   func(e *Provider, n int32) error { return e.Pause(ctx, n) },
	}
	for name, hook := range hooks {
		if err := hook(New(), 0); err != errNotStarted {
			t.Errorf("%s before Start: %v, want %v", name, err, errNotStarted)
		}
	}
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 1})
	for name, hook := range hooks {
		want := "embedded cluster: " + name + ": no node 9"
		if err := hook(e, 9); err == nil || err.Error() != want {
			t.Errorf("%s of node 9: %v, want %q", name, err, want)
		}
	}
	for _, step := range []string{"restart", "kill", "kill", "restart", "restart", "pause", "pause"} {
		if err := hooks[step](e, 1); err != nil {
			t.Fatalf("%s of node 1: %v", step, err)
		}
	}
	if err := e.Resume(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := e.Nodes()[1]; !n.Up {
		t.Errorf("node 1 after kill, restart, pause, resume: %+v, want up", n)
	}
}
