package local

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A librdkafka consumer with enable.auto.commit=true commits its stored
// offsets when it is closed: closing it is no crash. Fenced first, its
// commit is refused and the group keeps what was committed before; not
// fenced, the same close commits past it (which is what makes this test
// able to fail): at least the 20 records polled, and in fact whatever was
// fetched, since confluent-kafka-go's Close polls the queue until the
// consumer is closed and librdkafka stores the offset of every message a
// poll returns, even one Close then drops.
func TestFenceClientKeepsCloseFromCommitting(t *testing.T) {
	requireRealKafka(t, true)
	p := startCluster(t, Options{}, cluster.Spec{RunID: t.Name(), RunDir: t.TempDir(), Brokers: 1,
		Topics: []cluster.TopicSpec{{Name: "t", Partitions: 1}}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := produceN(ctx, p, "t", 40); err != nil {
		t.Fatal(err)
	}
	if err := p.FenceClient(ctx, "no-such-group", "nobody"); err == nil {
		t.Error("fencing a client that is in no group succeeded")
	}
	for _, fence := range []bool{true, false} {
		t.Run(fmt.Sprintf("fenced=%v", fence), func(t *testing.T) {
			group := fmt.Sprintf("g-fenced-%v", fence)
			before, after := closeAfterPolling(ctx, t, p, group, fence)
			t.Logf("committed before the close %d, after it %d (10 polled, then 10 more stored)", before, after)
			if before != 10 {
				t.Fatalf("explicit commit of 10 polled records committed %d", before)
			}
			switch {
			case fence && after != before:
				t.Errorf("close of a fenced consumer moved the committed offset from %d to %d", before, after)
			case !fence && after < 20:
				t.Errorf("close of an unfenced consumer committed %d, want at least its stored 20", after)
			}
		})
	}
}

// closeAfterPolling subscribes a consumer with auto-commit (and an interval
// no test outlives, so only the close can commit), polls 10 records and
// commits them, polls 10 more (stored, not committed), fences it if asked,
// closes it, and returns the group's committed offset before and after the
// close.
func closeAfterPolling(ctx context.Context, t *testing.T, p *Provider, group string, fence bool) (before, after int64) {
	t.Helper()
	const clientID = "kafkachaos-fence-test"
	kc, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": p.Bootstrap(), "group.id": group,
		"client.id": clientID, "enable.auto.commit": true, "auto.commit.interval.ms": 3_600_000,
		"auto.offset.reset": "earliest"})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			kc.Close()
		}
	}()
	if err := kc.Subscribe("t", nil); err != nil {
		t.Fatal(err)
	}
	if err := readN(kc, 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if before, err = committed(ctx, p, group, "t"); err != nil {
		t.Fatal(err)
	}
	if err := readN(kc, 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if fence {
		if err := p.FenceClient(ctx, group, clientID); err != nil {
			t.Fatalf("FenceClient: %v", err)
		}
	}
	closed = true
	if err := kc.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if after, err = committed(ctx, p, group, "t"); err != nil {
		t.Fatal(err)
	}
	return before, after
}

// readN reads n records, each stored as processed as librdkafka returns it.
func readN(kc *kafka.Consumer, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for got := 0; got < n; {
		if time.Now().After(deadline) {
			return fmt.Errorf("read %d of %d records in %s", got, n, limit)
		}
		_, err := kc.ReadMessage(time.Second)
		var kafkaErr kafka.Error
		switch {
		case err == nil:
			got++
		case !errors.As(err, &kafkaErr) || !kafkaErr.IsTimeout():
			return fmt.Errorf("read: %w", err)
		}
	}
	return nil
}

// produceN writes n records to partition 0 of topic with acks=all.
func produceN(ctx context.Context, p *Provider, topic string, n int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return err
	}
	defer cl.Close()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = kgo.StringRecord(fmt.Sprint(i))
	}
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

// committed is group's committed offset of partition 0 of topic as the
// coordinator reports it (-1: none).
func committed(ctx context.Context, p *Provider, group, topic string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{0}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("offset fetch: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("offset fetch: %w", err)
	}
	for _, rt := range resp.Topics {
		for _, pt := range rt.Partitions {
			if err := kerr.ErrorForCode(pt.ErrorCode); err != nil {
				return 0, fmt.Errorf("offset fetch %s/0: %w", topic, err)
			}
			return pt.Offset, nil
		}
	}
	return 0, fmt.Errorf("offset fetch: no answer for %s/0", topic)
}
