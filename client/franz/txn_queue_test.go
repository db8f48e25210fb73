package franz

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
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
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 4}}})
	return &txnRig{t: t, e: e, keys: client.SequentialKeys("t", 4), rec: client.NewMemRecorder()}
}

// queue opens a franz-go queue with transactional id id, changed by edit;
// it is closed when the test ends.
func (r *txnRig) queue(id string, edit func(*client.TxnQueueOptions)) *TxnQueue {
	r.t.Helper()
	opts := client.TxnQueueOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, TransactionalID: id, Seed: 3,
		CallTimeout: 5 * time.Second, Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	q, err := NewTxnQueue(r.t.Context(), opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(q.Close)
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

// Two franz-go queues' transactions mix sends and polls over four keys
// and a third of them abort: each txn op completes ok or fail; the
// committed ones read each other's values and never an aborted one; the
// read_committed final reads hold every committed value and no aborted
// one; and the checker finds nothing.
func TestFranzTxnQueueReadsOnlyCommitted(t *testing.T) {
	r := newTxnRig(t)
	queues := []*TxnQueue{
		r.queue("qa", func(o *client.TxnQueueOptions) { o.AbortProbability = 0.3 }),
		r.queue("qb", func(o *client.TxnQueueOptions) { o.AbortProbability, o.Seed = 0.3, 4 }),
	}
	p := clienttest.NewPlanner(1)
	for i := range 40 {
		if _, err := queues[i%2].Step(t.Context(), p.Plan(), 20, txnPollWait); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	ops := r.rec.Ops()
	committed, readOK := clienttest.TxnValues(ops, histories.OK)
	aborted, _ := clienttest.TxnValues(ops, histories.Fail)
	if len(committed) == 0 || len(aborted) == 0 || countTxns(ops, histories.Info) != 0 {
		t.Fatalf("%d values committed, %d aborted, %d info txns: want both outcomes and no unknown one",
			len(committed), len(aborted), countTxns(ops, histories.Info))
	}
	readCommitted := 0
	for v := range readOK {
		switch {
		case aborted[v]:
			t.Errorf("a committed transaction read value %d of an aborted one", v)
		case committed[v]:
			readCommitted++
		}
	}
	if readCommitted == 0 {
		t.Fatal("no committed transaction read a committed value: the polls proved nothing")
	}
	for _, q := range queues {
		q.Close()
	}
	final := r.finish()
	for v := range committed {
		if !final[v] {
			t.Errorf("committed value %d is not in the final reads", v)
		}
	}
	for v := range aborted {
		if final[v] {
			t.Errorf("aborted value %d is in the read_committed final reads", v)
		}
	}
	t.Logf("%d values committed, %d aborted; committed txns read %d committed values", len(committed), len(aborted), readCommitted)
}

// A franz-go queue crashes after its transaction's sends and polls, before
// the commit: its txn op is info, with the sends' offsets, and a crash op
// follows. A successor with the same transactional.id fences it, so the
// crashed transaction's records, which landed, are never visible; the
// checker finds nothing.
func TestFranzTxnQueueCrashTakeover(t *testing.T) {
	r := newTxnRig(t)
	a := r.queue("q", func(*client.TxnQueueOptions) {})
	p := clienttest.NewPlanner(2)
	for range 5 {
		if _, err := a.Step(t.Context(), p.Plan(), 20, txnPollWait); err != nil {
			t.Fatal(err)
		}
	}
	a.Crash()
	crashed := []histories.Mop{histories.Send(0, 1000), {F: histories.MPoll}, histories.Send(2, 1001)}
	if typ, err := a.Step(t.Context(), crashed, 20, txnPollWait); !errors.Is(err, client.ErrCrashed) || typ != histories.Info || !a.Crashed() {
		t.Fatalf("step: %s %v; want an info txn and a crash", typ, err)
	}
	if !a.Ended() || !a.NeedsFencing() {
		t.Fatal("the crashed queue has not ended, or does not ask to be fenced")
	}
	aOps := clienttest.OpsOf(r.rec.Ops(), a.Process())
	last, txn := aOps[len(aOps)-1], aOps[len(aOps)-2]
	if last.F != histories.FCrash || txn.F != histories.FTxn || txn.Type != histories.Info {
		t.Fatalf("crashed queue ended with %+v then %+v; want an info txn, then its crash op", txn, last)
	}
	for _, m := range txn.Mops {
		if m.F == histories.MSend && m.Offset < 0 {
			t.Fatalf("the crashed txn's send %+v has no offset: nothing landed to be hidden", m)
		}
	}
	b := r.queue("q", func(*client.TxnQueueOptions) {})
	for range 5 {
		if typ, err := b.Step(t.Context(), p.Plan(), 20, txnPollWait); err != nil || typ != histories.OK {
			t.Fatalf("successor step: %s %v", typ, err)
		}
	}
	b.Close()
	if final := r.finish(); final[1000] || final[1001] {
		t.Fatal("the crashed transaction's records are visible to read_committed final reads")
	}
}
