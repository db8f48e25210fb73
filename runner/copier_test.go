package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// copyScenario is a short transactional copy run: one producer writes
// keys 0-1 of "in", one copier copies them to keys 2-3 of "out".
func copyScenario() generators.Scenario {
	s := smallScenario()
	s.Name = "copy"
	s.Keys = generators.SequentialKeys(2, "in", "out")
	s.Producer.TransactionalID = "copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Workload = generators.Workload{Producers: 1, Lanes: 2, Copiers: 1, Mode: generators.ModeGroup, Group: "g",
		Mix: generators.Mix{Send: 1, Txn: 1}, Rate: 200, TxnSize: 5, PollBatch: 50}
	return s
}

// TestSettleFencesAStoppedCopier (issue 9, finding 8c): a copier that
// stopped (not crashed) with a transaction open, here because the run
// ended in the middle of it, is fenced at the end by a successor with its
// transactional.id, so that read_committed final reads are not held back
// until transaction.timeout.ms. (On the embedded cluster the stopped
// copier's close already ends its transaction; a hung copier's leaked
// producer, or a real broker, would not.)
func TestSettleFencesAStoppedCopier(t *testing.T) {
	s := copyScenario()
	e := embedded.New()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Start(ctx, clusterSpec(s, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(context.Background())
	rec := client.NewMemRecorder()
	w, err := newWorkload(s, e.Bootstrap(), rec, e)
	if err != nil {
		t.Fatal(err)
	}
	slot := &copierSlot{w: w, done: make(chan struct{})}
	close(slot.done) // its worker has returned
	w.copiers = []*copierSlot{slot}
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
	if _, err := cp.Step(end, 1000, 5*time.Second); !errors.Is(err, client.ErrCopierStopped) || cp.Crashed() || !cp.NeedsFencing() {
		t.Fatalf("step: %v, crashed %v, needs fencing %v; want a stopped copier to fence", err, cp.Crashed(), cp.NeedsFencing())
	}
	slot.settle(ctx)
	if err := w.err(); err != nil {
		t.Fatal(err)
	}
	next := slot.current()
	if next == cp || countOK(rec.Ops(), next.Process(), histories.FSubscribe) != 1 {
		t.Fatal("settle opened no successor to fence the stopped copier")
	}
	all, err := keyMapOf(s.Keys.Map)
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	err = client.FinalReads(rctx, client.FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: all, Recorder: rec,
		Process: w.procs.Next(), ReadCommitted: true})
	if err != nil {
		t.Fatalf("read_committed final reads after settle: %v", err)
	}
}

// sender returns a function that sends n more values to w's input keys.
func sender(t *testing.T, w *workload) func(n int) {
	t.Helper()
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: w.bootstrap, Config: w.producerConfig(),
		Keys: w.input, Recorder: w.rec, Processes: w.procs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return func(n int) {
		for range n {
			v := w.values.Add(1)
			if typ, err := p.Send(context.Background(), histories.Key(v%2), v); typ != histories.OK {
				t.Fatalf("send %d: %s %v", v, typ, err)
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

// TestRunCopiesThroughCrashes: a transactional copy run whose copier and
// producer are crashed again and again holds, ends without a harness
// error, and counts a crash as fired only once it happened (each fired
// copier crash has its crash op in the history).
func TestRunCopiesThroughCrashes(t *testing.T) {
	s := copyScenario()
	s.TimeLimit = generators.Duration(4 * time.Second)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: generators.Duration(time.Second),
		Duration: generators.Duration(2 * time.Second), Params: generators.FaultParams{Every: generators.Duration(500 * time.Millisecond)}}}
	start := time.Now()
	out, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), TestName: t.Name(), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %v; held %v; faults %+v; crashes %d; ops %v", time.Since(start), out.Held, out.Stats.Faults,
		out.Stats.Crashes, out.Stats.OpsByType)
	if !out.Held {
		t.Errorf("a transactional copy did not hold: %v", out.Result.Counts)
	}
	f := out.Stats.Faults[0]
	if f.Fired == 0 || out.Stats.Crashes < f.Fired {
		t.Errorf("fault %+v fired, %d crash ops: a fired crash must have happened", f, out.Stats.Crashes)
	}
	if out.Stats.OpsByType["txn ok"] == 0 {
		t.Errorf("no transaction committed: %v", out.Stats.OpsByType)
	}
}
