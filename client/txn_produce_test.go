package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/kafkachaos/kafkachaos/histories"
)

// silentProducer takes every record and never reports its delivery.
type silentProducer struct{ txnProducer }

func (silentProducer) Produce(*kafka.Message, chan kafka.Event) error { return nil }

// A copier whose delivery reports never come gives up after its retry
// budget, as the txn queue does, even under a context without a deadline.
func TestCopierProduceWaitsWithinABudget(t *testing.T) {
	const budget = 300 * time.Millisecond
	cp := &Copier{txnClient: txnClient{kp: silentProducer{}, retryBudget: budget},
		opts: CopierOptions{Pairs: map[histories.Key]histories.Key{0: 1}, Keys: SequentialKeys("out", 2)}}
	got := newFetched()
	got.Records[0], got.N = []histories.Record{{Offset: 0, Value: 7}, {Offset: 1, Value: 8}}, 2
	copies, err := cp.copies(got, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		mops []histories.Mop
		err  error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		mops, err := cp.produce(context.Background(), copies)
		done <- result{mops, err}
	}()
	select {
	case r := <-done:
		took := time.Since(start)
		if r.err == nil || !strings.Contains(r.err.Error(), "2 of 2 delivery reports still missing") || len(r.mops) != 2 {
			t.Fatalf("produce: %d mops, err %v; want both sends and an error naming the missing reports", len(r.mops), r.err)
		}
		if took < budget || took > budget+time.Second {
			t.Fatalf("produce gave up after %v, want about its %v budget", took, budget)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("produce still waiting for delivery reports after 5s (budget %v)", budget)
	}
}
