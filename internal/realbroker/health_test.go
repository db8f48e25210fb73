package realbroker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/cluster"
)

func TestHealthyAgainstKfake(t *testing.T) {
	a := fake(t)
	ctx := context.Background()
	if err := a.CreateTopics(ctx, 3, cluster.TopicSpec{Name: "in", Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	if err := a.Healthy(ctx, []int32{0, 1, 2}); err != nil {
		t.Fatalf("a whole kfake cluster: %v", err)
	}
	err := a.Healthy(ctx, []int32{0, 1, 2, 3})
	if err == nil || !strings.Contains(err.Error(), "registers brokers [0 1 2], want [0 1 2 3]") {
		t.Fatalf("a missing broker: %v", err)
	}
	if err := a.WaitRegistered(ctx, 1, 5*time.Second, func() error { return nil }); err != nil {
		t.Fatalf("registered broker 1: %v", err)
	}
	began := time.Now()
	err = a.WaitRegistered(ctx, 7, 500*time.Millisecond, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "broker 7 not back") || time.Since(began) > 5*time.Second {
		t.Fatalf("a broker that never registers: %v after %v", err, time.Since(began))
	}
}

// Health names the partitions whose ISR is short or that have no leader,
// and at most maxReasons of them.
func TestPartitionsWholeNamesShortISRs(t *testing.T) {
	part := func(p, leader int32, isr ...int32) kmsg.MetadataResponseTopicPartition {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.Replicas, mp.ISR = p, leader, []int32{1, 2, 3}, isr
		return mp
	}
	resp := kmsg.NewPtrMetadataResponse()
	topic := kmsg.NewMetadataResponseTopic()
	topic.Topic = kmsg.StringPtr("t")
	topic.Partitions = []kmsg.MetadataResponseTopicPartition{part(0, 1, 1, 2, 3)}
	resp.Topics = append(resp.Topics, topic)
	if err := partitionsWhole(resp); err != nil {
		t.Fatalf("full ISR: %v", err)
	}
	resp.Topics[0].Partitions = append(resp.Topics[0].Partitions, part(1, 1, 1), part(2, -1, 2, 3))
	err := partitionsWhole(resp)
	if err == nil || !strings.Contains(err.Error(), "2 partitions not whole") ||
		!strings.Contains(err.Error(), "t/1 has ISR [1] of replicas [1 2 3]") || !strings.Contains(err.Error(), "t/2 has no leader") {
		t.Fatalf("short ISR and no leader: %v", err)
	}
	for p := int32(3); p < 20; p++ {
		resp.Topics[0].Partitions = append(resp.Topics[0].Partitions, part(p, 1, 1))
	}
	if err := partitionsWhole(resp); strings.Count(err.Error(), "has ") != maxReasons {
		t.Fatalf("%d reasons listed, want %d: %v", strings.Count(err.Error(), "has "), maxReasons, err)
	}
}
