package client

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// queuePollWait is how long a test queue's poll waits for records.
const queuePollWait = 20 * time.Millisecond

// txnQueue opens a queue over every key of the rig (keys 0-3 of topics
// "in" and "out"), changed by edit.
func (r *copyRig) txnQueue(id string, edit func(*TxnQueueOptions)) *TxnQueue {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := TxnQueueOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, TransactionalID: id, Seed: 3,
		Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	q, err := NewTxnQueue(ctx, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(q.Close)
	return q
}

// queueRig makes a copyRig a clienttest.QueueRig of librdkafka queues.
type queueRig struct{ *copyRig }

func (r queueRig) Queue(id string, abort float64, seed int64) clienttest.TxnQueue {
	return r.txnQueue(id, func(o *TxnQueueOptions) { o.AbortProbability, o.Seed = abort, seed })
}

func (r queueRig) Ops() []histories.Op { return r.rec.Ops() }

// Finish reads every key back read_committed, checks that the history is
// paired and that the checker finds nothing, and returns the values the
// final reads hold.
func (r queueRig) Finish() map[int64]bool {
	r.t.Helper()
	res, _ := r.finish()
	expectClean(r.t, res)
	return clienttest.FinalValues(r.rec.Ops(), FinalExtra)
}

func TestTxnQueueReadsOnlyCommitted(t *testing.T) {
	t.Parallel()
	clienttest.CheckQueueReadsOnlyCommitted(t, queueRig{newCopyRig(t)})
}

func TestTxnQueueCrashTakeover(t *testing.T) {
	t.Parallel()
	clienttest.CheckQueueCrashTakeover(t, queueRig{newCopyRig(t)}, ErrCrashed)
}

// TestTxnQueueHangIsAFinding: a CommitTransaction that ignores its timeout
// does not hang the queue: its txn op completes info (the commit may have
// been applied), a client-hang op follows, and the queue stops.
func TestTxnQueueHangIsAFinding(t *testing.T) {
	const callTimeout = time.Second
	r := newCopyRig(t)
	q := r.txnQueue("q", func(o *TxnQueueOptions) { o.CallTimeout = callTimeout })
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	q.kp = &hangingProducer{txnProducer: q.kp, call: "CommitTransaction", release: release}
	start := time.Now()
	_, err := q.Step(context.Background(), []histories.Mop{histories.Send(1, 1)}, 20, queuePollWait)
	took := time.Since(start)
	if !errors.Is(err, ErrClientHang) || !errors.Is(err, ErrTxnQueueStopped) {
		t.Fatalf("step: %v; want a hang that stops the queue", err)
	}
	if limit := callTimeout + HangGrace(callTimeout) + 2*time.Second; took > limit {
		t.Fatalf("the hung step took %v, want at most %v", took, limit)
	}
	expectHangRecorded(t, clienttest.OpsOf(r.rec.Ops(), q.Process()), "CommitTransaction", histories.Info, callTimeout)
	if _, err := q.Step(context.Background(), []histories.Mop{{F: histories.MPoll}}, 20, 0); !errors.Is(err, ErrTxnQueueStopped) || !q.NeedsFencing() {
		t.Fatalf("a hung queue stepped again (%v) or does not ask to be fenced", err)
	}
}

// TestTxnQueueRefusesABadPlan: a plan Step cannot run is refused, naming
// the mop, and nothing is recorded for it.
func TestTxnQueueRefusesABadPlan(t *testing.T) {
	r := newCopyRig(t)
	q := r.txnQueue("q", func(*TxnQueueOptions) {})
	before := len(r.rec.Ops())
	for _, c := range []struct {
		plan []histories.Mop
		want string
	}{
		{nil, "empty plan"},
		{[]histories.Mop{{F: histories.MPoll}, histories.Send(9, 1)}, "plan[1]: key 9 is not in the key map"},
		{[]histories.Mop{{F: histories.MSend, Key: 1, Value: 1, Offset: 3}}, "plan[0]"},
		{[]histories.Mop{{F: histories.MCommit, Offsets: map[histories.Key]int64{0: 1}}}, "plan[0]"},
	} {
		_, err := q.Step(context.Background(), c.plan, 20, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %+v: %v, want an error naming %q", c.plan, err, c.want)
		}
	}
	if n := len(r.rec.Ops()); n != before {
		t.Fatalf("refused plans recorded %d ops", n-before)
	}
}

// Half of the transactions pause before each step after the first and
// before their end, up to the most; the rest, and every transaction when
// the most is 0, never pause. The same seed draws the same pauses.
func TestIntraTxnPausesHalfTheTransactions(t *testing.T) {
	const most = 40 * time.Millisecond
	rng := rand.New(rand.NewSource(9))
	paused := 0
	for range 400 {
		p := IntraTxnPauses(rng, 3, most)
		if len(p) == 0 {
			continue
		}
		paused++
		if len(p) != 3 {
			t.Fatalf("a 3-mop transaction got %d pauses, want 3", len(p))
		}
		for _, d := range p {
			if d < 0 || d > most {
				t.Fatalf("pause %v outside [0, %v]", d, most)
			}
		}
	}
	if paused < 150 || paused > 250 {
		t.Errorf("%d of 400 transactions paused, want about half", paused)
	}
	if p := IntraTxnPauses(rand.New(rand.NewSource(9)), 3, 0); p != nil {
		t.Errorf("no delay asked, got pauses %v", p)
	}
	a, b := IntraTxnPauses(rand.New(rand.NewSource(5)), 4, most), IntraTxnPauses(rand.New(rand.NewSource(5)), 4, most)
	if string(PausesJSON(a)) != string(PausesJSON(b)) {
		t.Errorf("same seed, pauses %v and %v", a, b)
	}
}

// A queue with an intra-transaction delay records its pauses on the txn
// ops that made them, and such a transaction lasts at least their sum;
// the others record none.
func TestTxnQueueRecordsItsPauses(t *testing.T) {
	t.Parallel()
	r := newCopyRig(t)
	q := r.txnQueue("qp", func(o *TxnQueueOptions) { o.IntraTxnDelay = 60 * time.Millisecond })
	p := clienttest.NewPlanner(2)
	for i := range 16 {
		if _, err := q.Step(context.Background(), p.Plan(), 20, queuePollWait); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	invoked := map[int64]int64{} // process -> invoke time of its open txn
	withPauses, without := 0, 0
	for _, o := range r.rec.Ops() {
		if o.F != histories.FTxn {
			continue
		}
		if o.Type == histories.Invoke {
			invoked[o.Process] = o.Time
			continue
		}
		raw, ok := o.Extra[ExtraIntraTxnDelays]
		if !ok {
			without++
			continue
		}
		withPauses++
		var ms []int64
		if err := json.Unmarshal(raw, &ms); err != nil || len(ms) != len(o.Mops) {
			t.Fatalf("op %d: pauses %s for %d mops", o.Index, raw, len(o.Mops))
		}
		var sum int64
		for _, m := range ms {
			sum += m
		}
		if took := (o.Time - invoked[o.Process]) / 1e6; took < sum {
			t.Errorf("op %d took %d ms, less than its pauses' %d ms", o.Index, took, sum)
		}
	}
	if withPauses == 0 || without == 0 {
		t.Errorf("%d transactions paused, %d did not: want both", withPauses, without)
	}
}
