package client

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copyRig is a copier test: topic "in" (keys 0, 1) copied to topic "out"
// (keys 2, 3), recorded to a history file.
type copyRig struct {
	t     *testing.T
	e     *cluster.Embedded
	keys  *KeyMap
	pairs map[histories.Key]histories.Key
	path  string
	rec   *fileRecorder
	procs Processes
}

// fileRecorder records to a history file and keeps a copy for the test to
// poll progress from.
type fileRecorder struct {
	*histories.Recorder
	mu  sync.Mutex
	ops []histories.Op
}

func (f *fileRecorder) Record(op *histories.Op) *histories.Op {
	o := f.Recorder.Record(op)
	f.mu.Lock()
	f.ops = append(f.ops, *o.Clone())
	f.mu.Unlock()
	return o
}

func (f *fileRecorder) Ops() []histories.Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ops)
}

func newCopyRig(t *testing.T) *copyRig {
	t.Helper()
	e := cluster.NewEmbedded()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := e.Start(ctx, cluster.Spec{RunID: t.Name(), Topics: []cluster.TopicSpec{{Name: "in", Partitions: 2}, {Name: "out", Partitions: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	keys, err := NewKeyMap(map[histories.Key]TopicPartition{0: {"in", 0}, 1: {"in", 1}, 2: {"out", 0}, 3: {"out", 1}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	w, err := histories.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &copyRig{t: t, e: e, keys: keys, pairs: map[histories.Key]histories.Key{0: 2, 1: 3}, path: path,
		rec: &fileRecorder{Recorder: histories.NewRecorder(w, histories.RecorderConfig{})}}
	t.Cleanup(func() { r.rec.Close() })
	return r
}

// produce sends values 0..n-1, alternating input keys 0 and 1.
func (r *copyRig) produce(n int64) {
	r.t.Helper()
	p, err := NewProducer(ProducerOptions{Bootstrap: r.e.Bootstrap(), Config: ProducerConfig{Acks: "all", Idempotence: true},
		Keys: r.keys, Recorder: r.rec, Processes: &r.procs})
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Close(context.Background())
	for v := range n {
		if typ, err := p.Send(context.Background(), v%2, v); typ != histories.OK {
			r.t.Fatalf("send %d: %s %v", v, typ, err)
		}
	}
}

func (r *copyRig) copier(mode CopyMode, subscribe bool, abortP float64) *Copier {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cp, err := NewCopier(ctx, CopierOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Pairs: r.pairs, Group: "copy",
		Subscribe: subscribe, Mode: mode, TransactionalID: "copier", AbortProbability: abortP, Seed: 7,
		Producer: ProducerConfig{Acks: "all"}, Recorder: r.rec, Process: r.procs.Next(), Fencer: r.e,
		Consumer: ConsumerConfig{SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cp.Close)
	return cp
}

// copied returns the input values that ok steps of the group processed.
func (r *copyRig) copied() map[int64]int {
	out := map[int64]int{}
	for _, o := range r.rec.Ops() {
		if o.Type != histories.OK || o.Group == "" || (o.F != histories.FTxn && o.F != histories.FPoll) {
			continue
		}
		for _, m := range o.Mops {
			for _, recs := range m.Records {
				for _, rec := range recs {
					out[rec.Value]++
				}
			}
		}
	}
	return out
}

// run steps cp until every value below n was copied, cp crashed, or the
// deadline; it returns Step's last error.
func (r *copyRig) run(cp *Copier, n int64, stopAfter func() bool) error {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := cp.Step(context.Background(), 7, 200*time.Millisecond); err != nil {
			return err
		}
		if int64(len(r.copied())) >= n || (stopAfter != nil && stopAfter()) {
			return nil
		}
	}
	r.t.Fatalf("copied %d of %d values before the deadline", len(r.copied()), n)
	return nil
}

// finish runs final reads of every key, read_committed, closes the history
// and checks the file. It returns the result and the values of each output
// key in log order.
func (r *copyRig) finish() (checkers.Result, map[histories.Key][]int64) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	final := r.procs.Next()
	err := FinalReads(ctx, FinalReadOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Recorder: r.rec, Process: final, ReadCommitted: true})
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[histories.Key][]int64{}
	for _, o := range r.rec.Ops() {
		if o.Process == final && o.Type == histories.OK && o.F == histories.FPoll {
			for _, k := range []histories.Key{2, 3} {
				for _, rec := range o.Mops[0].Records[k] {
					out[k] = append(out[k], rec.Value)
				}
			}
		}
	}
	if err := r.rec.Close(); err != nil {
		r.t.Fatal(err)
	}
	checkPaired(r.t, r.rec.Ops())
	src, err := histories.Open(r.path, histories.FormatAuto)
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := checkers.Check(src, checkers.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	return res, out
}

// exactlyOnce fails unless output key k holds each value of input key k-2
// below n exactly once (input key i holds the values v with v%2 == i).
func exactlyOnce(t *testing.T, out map[histories.Key][]int64, n int64) {
	t.Helper()
	for k, in := range map[histories.Key]int64{2: 0, 3: 1} {
		var want []int64
		for v := in; v < n; v += 2 {
			want = append(want, v)
		}
		got := slices.Sorted(slices.Values(out[k]))
		if !slices.Equal(got, want) {
			t.Errorf("output key %d holds %v, want each of %v once", k, out[k], want)
		}
	}
}

func countOps(ops []histories.Op, f string, typ histories.Type) int {
	n := 0
	for _, o := range ops {
		if o.F == f && o.Type == typ {
			n++
		}
	}
	return n
}

func expectClean(t *testing.T, res checkers.Result) {
	t.Helper()
	if !res.Valid || len(res.AnomalyTypes) > 0 {
		t.Fatalf("checker found %v (counts %v): %+v", res.AnomalyTypes, res.Counts, res.Anomalies)
	}
}

// TestCopierExactlyOnceWithAborts: random aborts are rewound and re-copied;
// the read_committed output holds every input value exactly once and the
// checker finds nothing, in both group modes.
func TestCopierExactlyOnceWithAborts(t *testing.T) {
	for _, subscribe := range []bool{false, true} {
		name := map[bool]string{false: "assign", true: "subscribe"}[subscribe]
		t.Run(name, func(t *testing.T) {
			const n = 60
			r := newCopyRig(t)
			r.produce(n)
			cp := r.copier(CopyTransactional, subscribe, 0.3)
			if err := r.run(cp, n, nil); err != nil {
				t.Fatal(err)
			}
			ops := r.rec.Ops()
			aborted, committed := countOps(ops, histories.FTxn, histories.Fail), countOps(ops, histories.FTxn, histories.OK)
			if aborted == 0 || committed == 0 {
				t.Fatalf("want aborted and committed txns, got %d aborted, %d committed", aborted, committed)
			}
			res, out := r.finish()
			exactlyOnce(t, out, n)
			expectClean(t, res)
			t.Logf("%d txns committed, %d aborted; %d ops", committed, aborted, res.Stats.Ops)
		})
	}
}

// TestCopierCrashTakeover: a copier crashes between its sends (and offsets)
// and its commit; a successor with the same transactional.id fences it,
// its open transaction is aborted, and the output is still exactly-once.
func TestCopierCrashTakeover(t *testing.T) {
	const n = 40
	r := newCopyRig(t)
	r.produce(n)
	a := r.copier(CopyTransactional, true, 0)
	if err := r.run(a, n, func() bool { return len(r.copied()) > 0 }); err != nil {
		t.Fatal(err)
	}
	a.Crash()
	if err := r.run(a, n, nil); !errors.Is(err, ErrCrashed) || !a.Crashed() {
		t.Fatalf("copier did not crash: %v", err)
	}
	b := r.copier(CopyTransactional, true, 0)
	if err := r.run(b, n, nil); err != nil {
		t.Fatal(err)
	}
	ops := r.rec.Ops()
	if countOps(opsOf(ops, a.Process()), histories.FTxn, histories.Info) != 1 || countOps(ops, histories.FCrash, histories.Info) != 1 {
		t.Fatal("want one info txn and one crash op of the crashed copier")
	}
	// The crash left records in the output log, uncommitted: the final
	// reads below must not see them.
	for _, o := range opsOf(ops, a.Process()) {
		if o.F == histories.FTxn && o.Type == histories.Info && !slices.ContainsFunc(o.Mops, func(m histories.Mop) bool {
			return m.F == histories.MSend && m.Offset >= 0
		}) {
			t.Fatalf("the crashed txn sent nothing that landed: %+v", o.Mops)
		}
	}
	res, out := r.finish()
	exactlyOnce(t, out, n)
	expectClean(t, res)
}

// TestCopierAtLeastOnceCrashDuplicates is the negative control: committing
// offsets outside a transaction, a crash after the sends and before the
// commit makes the successor copy the same records again, and the checker
// says so. It proves the two tests above can fail.
func TestCopierAtLeastOnceCrashDuplicates(t *testing.T) {
	const n = 40
	r := newCopyRig(t)
	r.produce(n)
	a := r.copier(CopyAtLeastOnce, true, 0)
	if err := r.run(a, n, func() bool { return len(r.copied()) > 0 }); err != nil {
		t.Fatal(err)
	}
	a.Crash()
	if err := r.run(a, n, nil); !errors.Is(err, ErrCrashed) {
		t.Fatalf("copier did not crash: %v", err)
	}
	b := r.copier(CopyAtLeastOnce, true, 0)
	if err := r.run(b, n, nil); err != nil {
		t.Fatal(err)
	}
	res, out := r.finish()
	for _, a := range []checkers.Anomaly{checkers.Duplicate, checkers.DuplicateDelivery} {
		if res.Counts[a] == 0 {
			t.Errorf("checker found no %s; found %v", a, res.AnomalyTypes)
		}
	}
	if total := len(out[2]) + len(out[3]); total <= n {
		t.Errorf("output holds %d records for %d inputs: nothing was copied twice", total, n)
	}
	for _, a := range res.AnomalyTypes {
		if a != checkers.Duplicate && a != checkers.DuplicateDelivery {
			t.Errorf("unexpected %s: %+v", a, res.Anomalies[a])
		}
	}
}

// TestCopierZombieFenced: a successor with the same transactional.id fences
// a copier that is still running; the zombie's next transaction fails and it
// stops, and nothing it sent after the fence is visible.
func TestCopierZombieFenced(t *testing.T) {
	const n = 30
	r := newCopyRig(t)
	r.produce(n)
	zombie := r.copier(CopyTransactional, false, 0)
	if err := r.run(zombie, n, func() bool { return len(r.copied()) > 0 }); err != nil {
		t.Fatal(err)
	}
	b := r.copier(CopyTransactional, false, 0)
	typ, err := zombie.Step(context.Background(), 7, 200*time.Millisecond)
	if !errors.Is(err, ErrCopierStopped) || typ == histories.OK {
		t.Fatalf("fenced copier's step: %s, %v; want a failed txn and ErrCopierStopped", typ, err)
	}
	if _, err := zombie.Step(context.Background(), 7, 0); !errors.Is(err, ErrCopierStopped) {
		t.Fatalf("stopped copier stepped again: %v", err)
	}
	if err := r.run(b, n, nil); err != nil {
		t.Fatal(err)
	}
	res, out := r.finish()
	exactlyOnce(t, out, n)
	expectClean(t, res)
}
