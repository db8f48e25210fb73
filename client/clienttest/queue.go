package clienttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// TxnQueue is a txn queue under test, of any client.
type TxnQueue interface {
	Step(ctx context.Context, plan []histories.Mop, pollMax int, pollWait time.Duration) (histories.Type, error)
	Process() int64
	Crash()
	Crashed() bool
	Ended() bool
	NeedsFencing() bool
	Close()
}

// QueueRig opens txn queues of one client on a cluster with keys 0-3 and
// keeps their history.
type QueueRig interface {
	// Queue opens a queue with transactional id id, aborting abort of
	// its transactions on purpose, its dice seeded by seed.
	Queue(id string, abort float64, seed int64) TxnQueue
	Ops() []histories.Op
	// Finish reads every key back read_committed, checks that the
	// history is paired and clean, and returns the values read.
	Finish() map[int64]bool
}

// queuePollWait is how long a test queue's poll waits for records.
const queuePollWait = 20 * time.Millisecond

// CheckQueueReadsOnlyCommitted: two queues' transactions mix sends and
// polls over four keys and a third of them abort. Each txn op completes
// ok or fail; the committed ones read each other's values and never an
// aborted one; the read_committed final reads hold every committed value
// and no aborted one; and the checker finds nothing.
func CheckQueueReadsOnlyCommitted(t *testing.T, r QueueRig) {
	queues := []TxnQueue{r.Queue("qa", 0.3, 3), r.Queue("qb", 0.3, 4)}
	p := NewPlanner(1)
	for i := range 40 {
		if _, err := queues[i%2].Step(t.Context(), p.Plan(), 20, queuePollWait); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	ops := r.Ops()
	committed, readOK := TxnValues(ops, histories.OK)
	aborted, _ := TxnValues(ops, histories.Fail)
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
	final := r.Finish()
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

// CheckQueueCrashTakeover: a queue crashes after its transaction's sends
// and polls, before the commit (its step's error is crashed): its txn op
// is info, with the sends' offsets, and a crash op follows. A successor
// with the same transactional.id fences it, so the crashed transaction's
// records, which landed, are never visible; the checker finds nothing.
func CheckQueueCrashTakeover(t *testing.T, r QueueRig, crashed error) {
	a := r.Queue("q", 0, 3)
	p := NewPlanner(2)
	for range 5 {
		if _, err := a.Step(t.Context(), p.Plan(), 20, queuePollWait); err != nil {
			t.Fatal(err)
		}
	}
	a.Crash()
	plan := []histories.Mop{histories.Send(0, 1000), {F: histories.MPoll}, histories.Send(2, 1001)}
	if typ, err := a.Step(t.Context(), plan, 20, queuePollWait); !errors.Is(err, crashed) || typ != histories.Info || !a.Crashed() {
		t.Fatalf("step: %s %v; want an info txn and a crash", typ, err)
	}
	if !a.Ended() || !a.NeedsFencing() {
		t.Fatal("the crashed queue has not ended, or does not ask to be fenced")
	}
	aOps := OpsOf(r.Ops(), a.Process())
	last, txn := aOps[len(aOps)-1], aOps[len(aOps)-2]
	if last.F != histories.FCrash || txn.F != histories.FTxn || txn.Type != histories.Info {
		t.Fatalf("crashed queue ended with %+v then %+v; want an info txn, then its crash op", txn, last)
	}
	for _, m := range txn.Mops {
		if m.F == histories.MSend && m.Offset < 0 {
			t.Fatalf("the crashed txn's send %+v has no offset: nothing landed to be hidden", m)
		}
	}
	b := r.Queue("q", 0, 3)
	for range 5 {
		if typ, err := b.Step(t.Context(), p.Plan(), 20, queuePollWait); err != nil || typ != histories.OK {
			t.Fatalf("successor step: %s %v", typ, err)
		}
	}
	b.Close()
	if final := r.Finish(); final[1000] || final[1001] {
		t.Fatal("the crashed transaction's records are visible to read_committed final reads")
	}
}

// countTxns counts the txn ops of type typ.
func countTxns(ops []histories.Op, typ histories.Type) int {
	n := 0
	for _, o := range ops {
		if o.F == histories.FTxn && o.Type == typ {
			n++
		}
	}
	return n
}
