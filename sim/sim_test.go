package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// TestSimChild is the entry of the child processes a Player runs.
func TestSimChild(t *testing.T) { Child(t) }

// player plays draws in child processes of this test binary, ended when t
// ends.
func player(t testing.TB) *Player {
	pl := NewPlayer(os.Args[0])
	t.Cleanup(func() {
		if err := pl.Close(); err != nil {
			t.Error(err)
		}
	})
	return pl
}

func spawn(t *testing.T, s generators.Scenario) (Played, Verdict) {
	t.Helper()
	p, err := player(t).Play(context.Background(), filepath.Join(t.TempDir(), "draw"), s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Check(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return p, v
}

// Saved seeds replay exactly (see the package doc for what may not), in a
// child of their own and in one that played other draws before.
func TestReplaysSeedExactly(t *testing.T) {
	pl := player(t)
	play := func(s generators.Scenario) Played {
		p, err := pl.Play(context.Background(), filepath.Join(t.TempDir(), "draw"), s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, s := range []generators.Scenario{generators.RandomIn(Space(), 1), generators.RandomIn(Space(), 7)} {
		a, _ := spawn(t, s)
		b := play(s)
		if len(a.Log) == 0 {
			t.Fatalf("%s: empty event log", s.Name)
		}
		if d := a.Log.Diff(b.Log); d != "" {
			t.Errorf("%s: replay diverged at %s", s.Name, d)
		}
	}
}

func TestPlantedDuplicatesFound(t *testing.T) {
	_, v := spawn(t, Planted(3))
	if v.Result.Counts["duplicate"] == 0 || v.Observed.Producer.String() == model.ExactlyOnce.String() {
		t.Fatalf("lost acks with a non-idempotent retrying producer: want duplicates, got %v (%s)", v.Result.Counts, v.Observed.Producer)
	}
}

func TestIdempotentProducerHoldsUnderLostAcks(t *testing.T) {
	s := Planted(3)
	s.Producer.ProducerConfig = model.DefaultProducer()
	_, v := spawn(t, s)
	if !v.Held || v.Result.Counts["duplicate"] != 0 {
		t.Fatalf("idempotent producer: want no duplicate and the model's guarantee held, got %v, held %v", v.Result.Counts, v.Held)
	}
}

// TestDrawsHoldTheirModel plays random draws of Space (KAFKACHAOS_SIM_DRAWS
// of them, 40 by default): each must hold the model's guarantee, and the
// planted draw among them must be refuted.
func TestDrawsHoldTheirModel(t *testing.T) {
	n := 40
	if v, err := strconv.Atoi(os.Getenv("KAFKACHAOS_SIM_DRAWS")); err == nil && v > 0 {
		n = v
	}
	var mu sync.Mutex
	var virtual time.Duration
	began := time.Now()
	err := Draws(context.Background(), os.Args[0], t.TempDir(), n, runtime.GOMAXPROCS(0), func(i int) generators.Scenario {
		if i == n/2 {
			return Planted(int64(i))
		}
		return generators.RandomIn(Space(), int64(i))
	}, func(d Drawn) {
		mu.Lock()
		defer mu.Unlock()
		virtual = virtual + d.Played.Virtual
		switch err := d.Want(d.I == n/2); {
		case errors.Is(err, Stalled):
			t.Log(err) // a limit, not a verdict; TestChaosSim bounds how often
		case err != nil:
			t.Error(err)
		}
	})
	if err != nil {
		t.Error(err)
	}
	el := time.Since(began)
	t.Logf("%d draws in %v: %.0f draws/minute, %.0f virtual s per wall s", n, el.Round(time.Millisecond), float64(n)/el.Minutes(), virtual.Seconds()/el.Seconds())
}

func TestRefusesWhatItDoesNotSimulate(t *testing.T) {
	copying := generators.RandomIn(Space(), 1)
	copying.Workload.Copiers, copying.Workload.CopierMode = 1, generators.CopyAtLeastOnce
	pausing := generators.RandomIn(Space(), 1)
	pausing.Nemesis = append(pausing.Nemesis, generators.Fault{Kind: generators.KindPause})
	queueing := generators.RandomIn(Space(), 1)
	queueing.Workload.TxnQueues = 1
	for name, s := range map[string]generators.Scenario{"copier": copying, "pause": pausing, "txn queue": queueing} {
		if err := supported(s); err == nil {
			t.Errorf("%s: simulated without a word", name)
		}
	}
	for seed := range int64(500) {
		if err := supported(generators.RandomIn(Space(), seed)); err != nil {
			t.Fatalf("draw %d of Space: %v", seed, err)
		}
	}
}

// BenchmarkReplayExactness plays draws of Space (and Planted) twice each
// and reports the share whose event logs are equal: how exact replay is
// over the space, beyond the saved seeds the tests pin.
func BenchmarkReplayExactness(b *testing.B) {
	exact := 0
	pl := player(b)
	for i := range b.N {
		s := generators.RandomIn(Space(), int64(i))
		if i%10 == 9 {
			s = Planted(int64(i))
		}
		a, erra := pl.Play(context.Background(), filepath.Join(b.TempDir(), "a"), s)
		c, errc := pl.Play(context.Background(), filepath.Join(b.TempDir(), "c"), s)
		if erra == nil && errc == nil && a.Log.Diff(c.Log) == "" {
			exact++
		}
	}
	b.ReportMetric(100*float64(exact)/float64(b.N), "exact-%")
}

// BenchmarkDraws plays and judges b.N draws of Space as a campaign does:
// one per processor at once, each child playing one draw after another.
// draws/min and virtual-s/s are its figures; a draw that ends in a
// harness error other than a stall fails it.
func BenchmarkDraws(b *testing.B) {
	var mu sync.Mutex
	var virtual time.Duration
	err := Draws(context.Background(), os.Args[0], b.TempDir(), b.N, runtime.GOMAXPROCS(0), func(i int) generators.Scenario {
		return generators.RandomIn(Space(), int64(i))
	}, func(d Drawn) {
		mu.Lock()
		defer mu.Unlock()
		virtual += d.Played.Virtual
		if d.Err != nil && !errors.Is(d.Err, Stalled) {
			b.Error(d.Err)
		}
	})
	if err != nil {
		b.Error(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Minutes(), "draws/min")
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/s")
}

// pairing checks the recording rule every worker keeps: per process, an
// invoke is followed by exactly one completion before the next invoke,
// nothing completes that was not invoked, every invoke completes, and a
// crashed process records nothing after its crash.
func pairing(history []byte) error {
	open := map[int64]bool{}
	crashed := map[int64]bool{}
	err := histories.NewReader(bytes.NewReader(history), "history").Scan(func(op *histories.Op) error {
		p := op.Process
		switch {
		case !op.IsClient():
			return nil
		case crashed[p]:
			return fmt.Errorf("op %d: process %d recorded after its crash", op.Index, p)
		case op.F == histories.FCrash:
			if open[p] {
				return fmt.Errorf("op %d: process %d crashed with an op open", op.Index, p)
			}
			crashed[p] = true
		case op.Type == histories.Invoke && open[p]:
			return fmt.Errorf("op %d: process %d invoked with an op open", op.Index, p)
		case op.Type != histories.Invoke && !open[p]:
			return fmt.Errorf("op %d: process %d completed nothing open", op.Index, p)
		}
		open[p] = op.Type == histories.Invoke
		return nil
	})
	if err != nil {
		return err
	}
	for p, o := range open {
		if o {
			return fmt.Errorf("process %d: an invoke never completed", p)
		}
	}
	return nil
}

func TestEveryInvokeCompletesOnce(t *testing.T) {
	err := Draws(context.Background(), os.Args[0], t.TempDir(), 60, runtime.GOMAXPROCS(0), func(i int) generators.Scenario {
		return generators.RandomIn(Space(), int64(1000+i))
	}, func(d Drawn) {
		if d.Err != nil {
			t.Log(d.Err) // judged elsewhere; only the histories matter here
			return
		}
		if err := pairing(d.Played.History); err != nil {
			t.Errorf("draw %d (seed %d, faults %v): %v", d.I, d.Scenario.Seed, d.Scenario.Nemesis, err)
		}
	})
	if err != nil {
		t.Error(err)
	}
}

func TestPairingFindsBrokenHistories(t *testing.T) {
	for name, h := range map[string]string{
		"double invoke": `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":0,"value":1}]}
{"index":1,"time":2,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":0,"value":2}]}
`,
		"never completed": `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":0,"value":1}]}
`,
		"after crash": `{"index":0,"time":1,"process":0,"type":"info","f":"crash"}
{"index":1,"time":2,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":0,"value":1}]}
`,
	} {
		if pairing([]byte(h)) == nil {
			t.Errorf("%s: not found", name)
		}
	}
}

// copying is a transactional copier (aborting some transactions on
// purpose) under leader moves, watched by a consumer of every key.
func copying(isolation model.Isolation) generators.Scenario {
	s := generators.Baseline("sim-copier", "sim", 2*time.Second)
	s.Keys = generators.SequentialKeys(2, "in", "out")
	s.Producer.TransactionalID = "sim-copier"
	s.Consumer.IsolationLevel, s.Consumer.CommitStrategy = isolation, model.CommitTransactional
	s.Workload.Consumers, s.Workload.Copiers = 1, 1
	s.Workload.Mix.Txn, s.Workload.TxnSize, s.Workload.AbortRatio = 2, 5, 0.3
	s.Nemesis = []generators.Fault{{Kind: generators.KindLeaderShuffle, Start: generators.Duration(500 * time.Millisecond),
		Duration: generators.Duration(time.Second), Params: generators.FaultParams{Every: generators.Duration(300 * time.Millisecond)}}}
	return s
}

func TestTransactionalCopierIsExactlyOnce(t *testing.T) {
	p, v := spawn(t, copying(model.ReadCommitted))
	if !v.Held || v.Observed.EndToEnd != model.ExactlyOnce || len(v.Result.Counts) > 0 {
		t.Fatalf("read_committed copier: want exactly-once and no anomaly, got %s held %v: %v", v.Observed.EndToEnd, v.Held, v.Result.Counts)
	}
	if txns := bytes.Count(p.History, []byte(`"type":"fail","f":"txn"`)); txns == 0 {
		t.Fatal("no transaction aborted: the test does not exercise aborts")
	}
}

func TestReadUncommittedWatcherSeesAbortedCopies(t *testing.T) {
	_, v := spawn(t, copying(model.ReadUncommitted))
	if v.Result.Counts["G1a"] == 0 {
		t.Fatalf("a read_uncommitted consumer of the copies: want G1a, got %v", v.Result.Counts)
	}
}

// A draw without producers (the shrinker halves them to none) plays: its
// consumers find nothing, and the run ends cleanly.
func TestPlaysWithoutProducers(t *testing.T) {
	s := generators.RandomIn(Space(), 3)
	s.Workload.Producers, s.Workload.Copiers, s.Workload.Consumers, s.Nemesis = 0, 0, 2, nil
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	p, v := spawn(t, s)
	if !bytes.Contains(p.History, []byte(`"f":"poll"`)) || !v.Held {
		t.Fatalf("no-producer draw: want consumer polls and the model held, got held %v, counts %v", v.Held, v.Result.Counts)
	}
}

// TestCopiesAbortedTwiceAreNoDuplicate: with most transactions aborted on
// purpose, records are aborted again and again before a commit copies
// them; a read_uncommitted watcher sees every aborted copy. Those are
// aborted reads (G1a), never a duplicate: each attempt poisons its copies
// with a value of its own.
func TestCopiesAbortedTwiceAreNoDuplicate(t *testing.T) {
	s := copying(model.ReadUncommitted)
	s.Workload.AbortRatio = 0.8
	p, v := spawn(t, s)
	if v.Result.Counts["G1a"] == 0 || v.Result.Counts["duplicate"] != 0 {
		t.Fatalf("a read_uncommitted consumer of copies aborted again and again: want G1a and no duplicate, got %v", v.Result.Counts)
	}
	n := abortedTwice(t, p.History)
	if n == 0 {
		t.Fatal("no record's copy was aborted twice: the test does not exercise it")
	}
	t.Logf("%d records aborted more than once; %d aborted reads", n, v.Result.Counts["G1a"])
}

// abortedTwice counts the input records (output key, offset) whose copy
// more than one failed txn poisoned.
func abortedTwice(t *testing.T, history []byte) int {
	t.Helper()
	type rec struct{ key, offset int64 }
	aborts := map[rec]int{}
	err := histories.NewReader(bytes.NewReader(history), "history").Scan(func(o *histories.Op) error {
		if o.F != histories.FTxn || o.Type != histories.Fail {
			return nil
		}
		for _, m := range o.Mops {
			if off, _, ok := histories.PoisonOf(m.Value); m.F == histories.MSend && ok {
				aborts[rec{m.Key, off}]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range aborts {
		if c > 1 {
			n++
		}
	}
	return n
}
