package workers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// copyScenario has one producer writing keys 0-1 of "in" and one
// transactional copier copying them to keys 2-3 of "out".
func copyScenario() generators.Scenario {
	return generators.Scenario{
		Name: "copy", Seed: 1,
		Cluster:   generators.Cluster{Provider: "embedded", Brokers: 3},
		Keys:      generators.SequentialKeys(2, "in", "out"),
		Topic:     model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Producer:  generators.Producer{ProducerConfig: model.DefaultProducer(), DeliveryTimeout: generators.Duration(10 * time.Second), RequestTimeout: generators.Duration(2 * time.Second)},
		Consumer:  generators.Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitTransactional}, SessionTimeout: generators.Duration(time.Second)},
		Workload:  generators.Workload{Producers: 1, Lanes: 2, Copiers: 1, Mode: generators.ModeGroup, Group: "g", Mix: generators.Mix{Send: 1, Txn: 1}, Rate: 200, TxnSize: 5, PollBatch: 50},
		TimeLimit: generators.Duration(2 * time.Second),
	}
}

// TestSettleFencesAStoppedCopier: a copier that
// stopped (not crashed) with a transaction open, here because the run
// ended in the middle of it, is fenced at the end by a successor with its
// transactional.id, so that read_committed final reads are not held back
// until transaction.timeout.ms. (On the embedded cluster the stopped
// copier's close already ends its transaction; a hung copier's leaked
// producer, or a real broker, would not.)
func TestSettleFencesAStoppedCopier(t *testing.T) {
	s := copyScenario()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := embeddedtest.StartScenario(t, s)
	rec := client.NewMemRecorder()
	w, err := New(s, Options{Bootstrap: e.Bootstrap(), Recorder: rec, Fencer: e})
	if err != nil {
		t.Fatal(err)
	}
	slot := w.copiers[0]
	slot.done = make(chan struct{})
	close(slot.done) // its worker has returned
	send := sender(t, w)
	cp, err := slot.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	send(10)
	for copied := 0; copied == 0 && ctx.Err() == nil; {
		if _, err := cp.Step(ctx, 100, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		copied = countOK(rec.Ops(), cp.Process(), histories.FTxn)
	}
	send(10)
	// The run ends while the step waits for more records: its
	// transaction is left open.
	end, stop := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stop()
	if _, err := cp.Step(end, 1000, 5*time.Second); !errors.Is(err, client.ErrCopierStopped) || cp.Ended() || !cp.NeedsFencing() {
		t.Fatalf("step: %v, ended %v, needs fencing %v; want a stopped copier to fence", err, cp.Ended(), cp.NeedsFencing())
	}
	slot.settle(ctx)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	next := slot.Current()
	if next == cp || countOK(rec.Ops(), next.Process(), histories.FSubscribe) != 1 {
		t.Fatal("settle opened no successor to fence the stopped copier")
	}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	err = client.FinalReads(rctx, client.FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: w.all, Recorder: rec,
		Process: w.NextProcess(), ReadCommitted: true})
	if err != nil {
		t.Fatalf("read_committed final reads after settle: %v", err)
	}
}

// sender returns a function that sends n more values to w's input keys
// and waits until each is acknowledged, through the producer the workers
// use.
func sender(t *testing.T, w *Workload) func(n int) {
	t.Helper()
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: w.opts.Bootstrap, Config: w.producerConfig(),
		Keys: w.input, Recorder: w.opts.Recorder, Processes: w.procs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return func(n int) {
		for range n {
			v := w.values.Add(1)
			done := make(chan histories.Type, 1)
			if err := p.SendAsync(context.Background(), histories.Key(v%2), v, func(typ histories.Type) { done <- typ }); err != nil {
				t.Fatalf("send %d: %v", v, err)
			}
			if typ := <-done; typ != histories.OK {
				t.Fatalf("send %d: %s", v, typ)
			}
		}
	}
}

// countOK counts the ok ops of process p with f; of txns, only those that
// copied records.
func countOK(ops []histories.Op, p int64, f string) int {
	n := 0
	for _, o := range ops {
		if o.Process == p && o.F == f && o.Type == histories.OK && (f != histories.FTxn || len(o.Mops) > 1) {
			n++
		}
	}
	return n
}
