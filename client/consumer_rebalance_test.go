package client

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// countingConsumer counts what librdkafka hands a consumer: records
// returned by Poll and the rebalance callbacks run inside it, so that a
// test can act at a point inside one poll op.
type countingConsumer struct {
	consumerHandle
	records, assigns, revokes atomic.Int32
}

func (w *countingConsumer) Poll(ms int) kafka.Event {
	ev := w.consumerHandle.Poll(ms)
	if m, ok := ev.(*kafka.Message); ok && m.TopicPartition.Error == nil {
		w.records.Add(1)
	}
	return ev
}

func (w *countingConsumer) SubscribeTopics(topics []string, cb kafka.RebalanceCb) error {
	return w.consumerHandle.SubscribeTopics(topics, func(kc *kafka.Consumer, ev kafka.Event) error {
		switch ev.(type) {
		case kafka.AssignedPartitions:
			w.assigns.Add(1)
		case kafka.RevokedPartitions:
			w.revokes.Add(1)
		}
		return cb(kc, ev)
	})
}

// processedBy counts, per key and offset, the ok poll ops of the group
// that returned the record.
func processedBy(ops []histories.Op) map[histories.Key]map[int64][]int64 {
	out := map[histories.Key]map[int64][]int64{}
	for _, o := range ops {
		if o.F != histories.FPoll || o.Type != histories.OK || o.Group == "" {
			continue
		}
		for _, m := range o.Mops {
			for k, recs := range m.Records {
				if out[k] == nil {
					out[k] = map[int64][]int64{}
				}
				for _, r := range recs {
					out[k][r.Offset] = append(out[k][r.Offset], o.Index)
				}
			}
		}
	}
	return out
}

// TestRevokedRecordsAreNotProcessed: a member whose poll op fetched
// records and then, inside the same op, lost their partitions to a
// rebalance (a second member joining) neither processes nor commits them;
// the op lists them as revoked-unprocessed. So under commit before (or
// after) processing, without a crash, every record is processed exactly
// once by the group, although the new owners read from offsets committed
// before the op ended. Processing them, as the worker once did, gave the
// commit-before-processing row duplicates under leader moves. An
// auto-committing member keeps them: librdkafka commits their stored
// offsets as it removes the partitions, so they are processed once too.
func TestRevokedRecordsAreNotProcessed(t *testing.T) {
	for _, commit := range []CommitStrategy{CommitBeforeProcessing, CommitAfterProcessing, CommitAuto} {
		t.Run(string(commit), func(t *testing.T) { revokedInsidePoll(t, commit) })
	}
}

func revokedInsidePoll(t *testing.T, commit CommitStrategy) {
	const perKey = 10
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	procs := &Processes{}
	keys := SequentialKeys("t", 2)
	produceKeys(t, e, 2, 0, 2*perKey)
	member := func(wrap func(consumerHandle) consumerHandle) *Consumer {
		return subscribe(t, ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: keys, Recorder: rec, Process: procs.Next(),
			Fencer: e, wrap: wrap, Config: ConsumerConfig{Commit: commit}})
	}

	w := &countingConsumer{}
	a := member(func(kc consumerHandle) consumerHandle { w.consumerHandle = kc; return w })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Poll(ctx, 1000, 30*time.Second) }() // one long op
	if !waitFor(20*time.Second, func() bool { return w.records.Load() >= 2*perKey }) {
		t.Fatalf("the first member fetched %d of %d records", w.records.Load(), 2*perKey)
	}

	// A second member joins while the op runs: inside it, the first
	// member's partitions are revoked and one comes back, read again
	// from its committed offset: none yet, so the beginning, except
	// under auto-commit, whose revoke committed every record fetched.
	b := member(nil)
	rebalanced := func() bool {
		return w.assigns.Load() >= 2 && (commit == CommitAuto || w.records.Load() >= 3*perKey)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !rebalanced() {
		if time.Now().After(deadline) {
			t.Fatalf("no rebalance inside the op: %d assigns, %d revokes, %d records", w.assigns.Load(), w.revokes.Load(), w.records.Load())
		}
		if err := b.Poll(context.Background(), 5, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkRevokedOp(t, rec.Ops(), a.Process(), commit)

	// Both members read on until the group has processed every record.
	complete := func() bool {
		got := processedBy(rec.Ops())
		return len(got[0]) == perKey && len(got[1]) == perKey
	}
	for !complete() && time.Now().Before(deadline) {
		for _, c := range []*Consumer{a, b} {
			if err := c.Poll(context.Background(), 20, 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	clienttest.CheckPaired(t, rec.Ops())
	for k, offs := range processedBy(rec.Ops()) {
		for off, ops := range offs {
			if len(ops) > 1 {
				t.Errorf("key %d offset %d processed by ops %v", k, off, ops)
			}
		}
	}
	if !complete() {
		t.Errorf("the group processed %v of %d records per key", processedBy(rec.Ops()), perKey)
	}
}

// checkRevokedOp checks the long poll op of process p: ok, with a revoke,
// listing as revoked-unprocessed the records of revoked keys it fetched
// before the revoke, each once.
func checkRevokedOp(t *testing.T, ops []histories.Op, p int64, commit CommitStrategy) {
	t.Helper()
	var op *histories.Op
	for i := range ops {
		if ops[i].Process == p && ops[i].F == histories.FPoll && ops[i].Type != histories.Invoke {
			op = &ops[i]
			break
		}
	}
	if op == nil || op.Type != histories.OK || op.Rebalance == nil || len(op.Rebalance.Revoked) == 0 {
		t.Fatalf("first poll of process %d: %+v, want an ok op with a revoke", p, op)
	}
	if commit == CommitAuto {
		if raw, ok := op.Extra[ExtraRevoked]; ok {
			t.Errorf("op %d: auto-commit dropped %s, want them processed", op.Index, raw)
		}
		return
	}
	var dropped map[histories.Key][][2]int64
	if err := json.Unmarshal(op.Extra[ExtraRevoked], &dropped); err != nil || len(dropped) == 0 {
		t.Errorf("op %d: Extra %s = %s (%v), want the records fetched before the revoke", op.Index, ExtraRevoked, op.Extra[ExtraRevoked], err)
	}
	for k, recs := range dropped {
		if !slices.Contains(op.Rebalance.Revoked, k) {
			t.Errorf("op %d dropped records of key %d, which it did not lose", op.Index, k)
		}
		seen := map[int64]bool{}
		for _, r := range recs {
			if seen[r[0]] {
				t.Errorf("op %d: key %d offset %d dropped twice", op.Index, k, r[0])
			}
			seen[r[0]] = true
		}
	}
}
