package java

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// txnPollWait is how long a test queue's poll waits for records.
const txnPollWait = 20 * time.Millisecond

// txnRig is an embedded cluster with topic t of four partitions, keys
// 0-3, and the history the test's queues record.
type txnRig struct {
	t     *testing.T
	e     *embedded.Provider
	keys  *client.KeyMap
	rec   *client.MemRecorder
	procs client.Processes
}

func newTxnRig(t *testing.T) *txnRig {
	t.Helper()
	javatest.NeedJDK(t)
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 4}}})
	return &txnRig{t: t, e: e, keys: client.SequentialKeys("t", 4), rec: client.NewMemRecorder()}
}

// queue opens a Java queue with transactional id id, changed by edit; it
// is closed when the test ends.
func (r *txnRig) queue(id string, edit func(*client.TxnQueueOptions)) *TxnQueue {
	r.t.Helper()
	opts := client.TxnQueueOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, TransactionalID: id, Seed: 3,
		CallTimeout: 5 * time.Second, Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	q, err := NewTxnQueue(r.t.Context(), TxnQueueOptions{TxnQueueOptions: opts})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(q.Close)
	r.t.Logf("JVM of %s started in %v", id, q.Started)
	return q
}

// finish reads every key back read_committed (librdkafka) and returns
// the values those final reads hold, after checking that the history is
// paired and the checker finds nothing.
func (r *txnRig) finish() map[int64]bool {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := client.FinalReads(ctx, client.FinalReadOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Recorder: r.rec,
		Process: r.procs.Next(), ReadCommitted: true})
	if err != nil {
		r.t.Fatal(err)
	}
	ops := r.rec.Ops()
	clienttest.CheckPaired(r.t, ops)
	clienttest.CheckClean(r.t, ops)
	return clienttest.FinalValues(ops, client.FinalExtra)
}

func countTxns(ops []histories.Op, typ histories.Type) int {
	n := 0
	for _, o := range ops {
		if o.F == histories.FTxn && o.Type == typ {
			n++
		}
	}
	return n
}

// Queue and Ops make the rig a clienttest.QueueRig, with Finish.
func (r *txnRig) Queue(id string, abort float64, seed int64) clienttest.TxnQueue {
	return r.queue(id, func(o *client.TxnQueueOptions) { o.AbortProbability, o.Seed = abort, seed })
}

func (r *txnRig) Ops() []histories.Op { return r.rec.Ops() }

func (r *txnRig) Finish() map[int64]bool { return r.finish() }

// Java queues read only committed values (clienttest).
func TestJavaTxnQueueReadsOnlyCommitted(t *testing.T) {
	clienttest.CheckQueueReadsOnlyCommitted(t, newTxnRig(t))
}

// A crashed Java queue's transaction stays invisible once its successor
// fences it (clienttest).
func TestJavaTxnQueueCrashTakeover(t *testing.T) {
	clienttest.CheckQueueCrashTakeover(t, newTxnRig(t), client.ErrCrashed)
}

// A Java queue with an intra-transaction delay records on each txn op the
// pauses client.TxnQueue would draw with the same seed (abort dice first,
// then the pauses), and such a transaction lasts at least their sum.
func TestJavaTxnQueueRecordsItsPauses(t *testing.T) {
	const delay = 60 * time.Millisecond
	r := newTxnRig(t)
	q := r.queue("qp", func(o *client.TxnQueueOptions) { o.IntraTxnDelay, o.AbortProbability, o.Seed = delay, 0.2, 7 })
	p := clienttest.NewPlanner(2)
	dice := rand.New(rand.NewSource(7))
	var want []string
	for i := range 12 {
		plan := p.Plan()
		dice.Float64()
		if pauses := client.IntraTxnPauses(dice, len(plan), delay); len(pauses) > 0 {
			want = append(want, string(client.PausesJSON(pauses)))
		} else {
			want = append(want, "")
		}
		if _, err := q.Step(t.Context(), plan, 20, txnPollWait); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	var invoked int64
	n, paused := 0, 0
	for _, o := range r.rec.Ops() {
		if o.F != histories.FTxn {
			continue
		}
		if o.Type == histories.Invoke {
			invoked = o.Time
			continue
		}
		raw := o.Extra[client.ExtraIntraTxnDelays]
		if string(raw) != want[n] {
			t.Errorf("txn %d recorded pauses %s, want %q (client.TxnQueue's draw)", n, raw, want[n])
		}
		n++
		if raw == nil {
			continue
		}
		paused++
		var ms []int64
		if err := json.Unmarshal(raw, &ms); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, m := range ms {
			sum += m
		}
		if took := (o.Time - invoked) / 1e6; took < sum {
			t.Errorf("op %d took %d ms, less than its pauses' %d ms", o.Index, took, sum)
		}
	}
	if n != 12 || paused == 0 || paused == n {
		t.Fatalf("%d txn ops, %d with pauses: want 12, some paused and some not", n, paused)
	}
}

// A Java queue whose JVM stops answering (SIGSTOP) mid-transaction does
// not hang the step: past the request's bound and grace the JVM is
// killed, the txn op completes fail (commitTransaction was never called,
// and never will be), a client-hang op follows, and the queue stops and
// asks to be fenced.
func TestJavaTxnQueueHangIsAFinding(t *testing.T) {
	r := newTxnRig(t)
	// InitTransactions gets a generous budget (it has outlasted five
	// seconds on loaded cores); the frozen step a short one, so that its
	// bound, and the test, stay short.
	q := r.queue("qh", func(o *client.TxnQueueOptions) { o.CallTimeout, o.RetryBudget = 2*time.Second, 30*time.Second })
	q.retryBudget = 3 * time.Second
	if err := q.jvm.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	typ, err := q.Step(t.Context(), []histories.Mop{histories.Send(1, 1)}, 20, txnPollWait)
	if !errors.Is(err, client.ErrClientHang) || !errors.Is(err, client.ErrTxnQueueStopped) || typ != histories.Fail {
		t.Fatalf("step: %s %v; want a fail txn and a hang that stops the queue", typ, err)
	}
	ops := clienttest.OpsOf(r.rec.Ops(), q.Process())
	last, txn := ops[len(ops)-1], ops[len(ops)-2]
	if last.F != histories.FClientHang || txn.F != histories.FTxn || txn.Type != histories.Fail {
		t.Fatalf("hung queue ended with %+v then %+v; want a fail txn, then its client-hang op", txn, last)
	}
	if _, err := q.Step(t.Context(), []histories.Mop{{F: histories.MPoll}}, 20, 0); !errors.Is(err, client.ErrTxnQueueStopped) || !q.NeedsFencing() {
		t.Fatalf("a hung queue stepped again (%v) or does not ask to be fenced", err)
	}
}

// Options no queue can run with are refused as client.TxnQueue refuses
// them, before any JVM starts.
func TestJavaTxnQueueRefusesBadOptions(t *testing.T) {
	keys := client.SequentialKeys("t", 2)
	for _, c := range []struct {
		opts client.TxnQueueOptions
		want string
	}{
		{client.TxnQueueOptions{Keys: keys, Recorder: client.NewMemRecorder()}, "TransactionalID is required"},
		{client.TxnQueueOptions{TransactionalID: "q"}, "Keys and Recorder are required"},
		{client.TxnQueueOptions{Keys: keys, Recorder: client.NewMemRecorder(), TransactionalID: "q", AbortProbability: 2}, "AbortProbability = 2"},
		{client.TxnQueueOptions{Keys: keys, Recorder: client.NewMemRecorder(), TransactionalID: "q", IntraTxnDelay: -time.Second}, "IntraTxnDelay = -1s"},
	} {
		if _, err := NewTxnQueue(t.Context(), TxnQueueOptions{TxnQueueOptions: c.opts}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.opts, err, c.want)
		}
	}
}

// A live Java queue fenced by a successor with its transactional.id ends
// its next transaction before the commit (fail) and stops: its producer
// refuses the abort, so it never steps again, and the successor's
// transactions commit.
func TestJavaTxnQueueFencedBySuccessorStops(t *testing.T) {
	r := newTxnRig(t)
	a := r.queue("qf", func(*client.TxnQueueOptions) {})
	if typ, err := a.Step(t.Context(), []histories.Mop{histories.Send(0, 1)}, 20, txnPollWait); typ != histories.OK {
		t.Fatalf("step: %s %v", typ, err)
	}
	b := r.queue("qf", func(*client.TxnQueueOptions) {})
	typ, err := a.Step(t.Context(), []histories.Mop{histories.Send(1, 2), {F: histories.MPoll}}, 20, txnPollWait)
	if typ != histories.Fail || !errors.Is(err, client.ErrTxnQueueStopped) || !a.Ended() {
		t.Fatalf("fenced step: %s %v (ended %v); want a fail txn that stops the queue", typ, err, a.Ended())
	}
	t.Logf("fenced: %v", err)
	if typ, err := b.Step(t.Context(), []histories.Mop{histories.Send(2, 3)}, 20, txnPollWait); typ != histories.OK {
		t.Fatalf("successor step: %s %v", typ, err)
	}
	b.Close()
	if final := r.finish(); final[2] || !final[1] || !final[3] {
		t.Fatalf("final reads hold %v: want 1 and 3 (committed), not 2 (fenced)", final)
	}
}
