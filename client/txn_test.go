package client

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copyRig is a copier test: topic "in" (keys 0, 1) copied to topic "out"
// (keys 2, 3), recorded to a history file.
type copyRig struct {
	t     *testing.T
	e     *embedded.Provider
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
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "in", Partitions: 2}, {Name: "out", Partitions: 2}}})
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
	return r.copierWith(func(o *CopierOptions) { o.Mode, o.Subscribe, o.AbortProbability = mode, subscribe, abortP })
}

// copierWith is a transactional copier (assign mode, no aborts) changed by
// edit.
func (r *copyRig) copierWith(edit func(*CopierOptions)) *Copier {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := CopierOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Pairs: r.pairs, Group: "copy",
		TransactionalID: "copier", Seed: 7,
		Producer: ProducerConfig{Acks: "all"}, Recorder: r.rec, Process: r.procs.Next(), Fencer: r.e,
		Consumer: ConsumerConfig{SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}}
	edit(&opts)
	cp, err := NewCopier(ctx, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cp.Close)
	return cp
}

// copied returns the input values that ok steps of the group processed.
func (r *copyRig) copied() map[int64]int { return clienttest.Copied(r.rec.Ops()) }

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
	return r.finishReading(true)
}

// finishReading is finish with final reads of the isolation asked for.
func (r *copyRig) finishReading(readCommitted bool) (checkers.Result, map[histories.Key][]int64) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	final := r.procs.Next()
	err := FinalReads(ctx, FinalReadOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Recorder: r.rec, Process: final, ReadCommitted: readCommitted})
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
	clienttest.CheckPaired(r.t, hangsAsCrashes(r.rec.Ops()))
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

// hangsAsCrashes is ops with each client-hang op renamed a crash op:
// checkPaired knows a crash as a process's last op, and a client-hang is
// one as well.
func hangsAsCrashes(ops []histories.Op) []histories.Op {
	for i := range ops {
		if ops[i].F == histories.FClientHang {
			ops[i].F = histories.FCrash
		}
	}
	return ops
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
	t.Parallel()
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
			copiesName(t, ops, r.pairs)
			res, out := r.finish()
			clienttest.CheckCopiedOnce(t, out, r.pairs, n)
			expectClean(t, res)
			t.Logf("%d txns committed, %d aborted; %d ops", committed, aborted, res.Stats.Ops)
		})
	}
}

// TestCopierCrashTakeover: a copier crashes between its sends (and offsets)
// and its commit; a successor with the same transactional.id fences it,
// its open transaction is aborted, and the output is still exactly-once.
func TestCopierCrashTakeover(t *testing.T) {
	t.Parallel()
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
	if countOps(clienttest.OpsOf(ops, a.Process()), histories.FTxn, histories.Info) != 1 || countOps(ops, histories.FCrash, histories.Info) != 1 {
		t.Fatal("want one info txn and one crash op of the crashed copier")
	}
	// The crash left records in the output log, uncommitted: the final
	// reads below must not see them.
	for _, o := range clienttest.OpsOf(ops, a.Process()) {
		if o.F == histories.FTxn && o.Type == histories.Info && !slices.ContainsFunc(o.Mops, func(m histories.Mop) bool {
			return m.F == histories.MSend && m.Offset >= 0
		}) {
			t.Fatalf("the crashed txn sent nothing that landed: %+v", o.Mops)
		}
	}
	res, out := r.finish()
	clienttest.CheckCopiedOnce(t, out, r.pairs, n)
	expectClean(t, res)
}

// TestCopierAtLeastOnceCrashDuplicates is the negative control: committing
// offsets outside a transaction, a crash after the sends and before the
// commit makes the successor copy the same records again, and the checker
// says so. It proves the two tests above can fail.
func TestCopierAtLeastOnceCrashDuplicates(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	clienttest.CheckCopiedOnce(t, out, r.pairs, n)
	expectClean(t, res)
}

// hangingProducer makes one producer call block until released, ignoring
// its timeout, as librdkafka's SendOffsetsToTransaction does once the group
// coordinator went away (librdkafka issues 5456, 5511).
type hangingProducer struct {
	txnProducer
	call    string
	release chan struct{}
}

// hangFor is when a hung call lets go anyway, so that a copier without a
// watchdog fails the test rather than hanging it.
const hangFor = 20 * time.Second

func (h *hangingProducer) hang(ctx context.Context, call string) (bool, error) {
	if call != h.call {
		return false, nil
	}
	t := time.NewTimer(hangFor)
	defer t.Stop()
	select {
	case <-h.release:
	case <-t.C:
	}
	return true, ctx.Err()
}

func (h *hangingProducer) SendOffsetsToTransaction(ctx context.Context, offs []kafka.TopicPartition, meta *kafka.ConsumerGroupMetadata) error {
	if hung, err := h.hang(ctx, "SendOffsetsToTransaction"); hung {
		return err
	}
	return h.txnProducer.SendOffsetsToTransaction(ctx, offs, meta)
}

func (h *hangingProducer) CommitTransaction(ctx context.Context) error {
	if hung, err := h.hang(ctx, "CommitTransaction"); hung {
		return err
	}
	return h.txnProducer.CommitTransaction(ctx)
}

// TestCopierHangIsAFinding: a transactional call that
// ignores its timeout does not hang the copier. Step gives up a grace after
// the call's timeout, completes the txn op (fail before the commit was
// asked for, info during it), records a client-hang op with the call, its
// timeout and how long it blocked, and stops; a successor with the same
// transactional.id fences the hung producer and copies every record
// exactly once.
func TestCopierHangIsAFinding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		call string
		want histories.Type
	}{{"SendOffsetsToTransaction", histories.Fail}, {"CommitTransaction", histories.Info}}
	for _, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			const n = 30
			const callTimeout = time.Second
			r := newCopyRig(t)
			r.produce(n)
			a := r.copierWith(func(o *CopierOptions) { o.CallTimeout = callTimeout })
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			a.kp = &hangingProducer{txnProducer: a.kp, call: c.call, release: release}
			took, err := stepUntilError(t, a)
			t.Logf("the hung step returned after %v: %v", took, err)
			if !errors.Is(err, ErrClientHang) || !errors.Is(err, ErrCopierStopped) {
				t.Fatalf("step: %v; want a hang that stops the copier", err)
			}
			if limit := stepWait + callTimeout + HangGrace(callTimeout) + 2*time.Second; took > limit {
				t.Fatalf("the hung step took %v, want at most %v", took, limit)
			}
			expectHangRecorded(t, clienttest.OpsOf(r.rec.Ops(), a.Process()), c.call, c.want, callTimeout)
			if !a.NeedsFencing() {
				t.Fatal("a hung copier does not ask to be fenced")
			}
			if _, err := a.Step(context.Background(), 7, 0); !errors.Is(err, ErrCopierStopped) {
				t.Fatalf("a hung copier stepped again: %v", err)
			}
			b := r.copierWith(func(*CopierOptions) {})
			if err := r.run(b, n, nil); err != nil {
				t.Fatal(err)
			}
			if got := clienttest.OpsOf(r.rec.Ops(), a.Process()); got[len(got)-1].F != histories.FClientHang {
				t.Fatalf("process %d recorded %+v after its client-hang", a.Process(), got[len(got)-1])
			}
			res, out := r.finish()
			clienttest.CheckCopiedOnce(t, out, r.pairs, n)
			expectClean(t, res)
		})
	}
}

// stepWait is how long a test step waits for input records.
const stepWait = 200 * time.Millisecond

// stepUntilError steps cp until a step fails (or 30s pass) and returns how
// long that step took and its error.
func stepUntilError(t *testing.T, cp *Copier) (time.Duration, error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		start := time.Now()
		if _, err := cp.Step(context.Background(), 7, stepWait); err != nil {
			return time.Since(start), err
		}
	}
	t.Fatal("no step failed in 30s")
	return 0, nil
}

// expectHangRecorded checks a hung copier's ops end with its txn op
// completed as want, naming the hang, then the client-hang op.
func expectHangRecorded(t *testing.T, ops []histories.Op, call string, want histories.Type, timeout time.Duration) {
	t.Helper()
	if len(ops) < 3 {
		t.Fatalf("ops %+v: want a txn invoke, its completion and a client-hang", ops)
	}
	txn, hang := ops[len(ops)-2], ops[len(ops)-1]
	if txn.F != histories.FTxn || txn.Type != want || !strings.Contains(txn.Error, "client hang: "+call) {
		t.Fatalf("txn completion %+v: want %s naming the hang of %s", txn, want, call)
	}
	v, err := hang.ClientHang()
	if err != nil || hang.F != histories.FClientHang || hang.Type != histories.Info {
		t.Fatalf("last op %+v (%v): want an info client-hang", hang, err)
	}
	grace := HangGrace(timeout)
	if v.Call != call || v.TimeoutMs <= 0 || v.TimeoutMs > timeout.Milliseconds() ||
		v.GraceMs != grace.Milliseconds() || v.BlockedMs < v.TimeoutMs+v.GraceMs {
		t.Fatalf("client-hang value %+v: want call %s, timeout <= %v, grace %v, blocked >= both", v, call, timeout, grace)
	}
}

// TestCopierRetryBacksOffWithinABudget: a call that
// fails retriably for ever is retried with a growing pause, and given up
// as ErrRetriesExhausted when the budget is spent, keeping its last error.
func TestCopierRetryBacksOffWithinABudget(t *testing.T) {
	cp := &Copier{txnClient: txnClient{callTimeout: time.Second, retryBudget: time.Second}}
	var calls []time.Time
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := cp.retry(ctx, "InitTransactions", func(context.Context) error {
		calls = append(calls, time.Now())
		return flagged{retriable: true}
	})
	if !errors.Is(err, ErrRetriesExhausted) || TxnActionOf(err) != TxnRetry || ctx.Err() != nil {
		t.Fatalf("err = %v (ctx %v); want ErrRetriesExhausted within the budget, wrapping the retriable error", err, ctx.Err())
	}
	// 50+100+200+400 ms of pauses fit a 1s budget; the next 800 does not.
	if len(calls) != 5 {
		t.Fatalf("%d attempts, want 5", len(calls))
	}
	// Each pause is at least its doubled backoff. Comparing a pause with
	// the one before would judge the scheduler: on loaded cores a 50 ms
	// pause took 130 ms, and the 100 ms after it 104.
	want := retryBackoffMin
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].Sub(calls[i-1]); gap < want {
			t.Errorf("pause %d is %v, want at least %v: not backing off", i, gap, want)
		}
		want *= 2
	}
}
