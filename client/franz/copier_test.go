package franz

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copyRig is an embedded cluster with input keys 0-1 (topic in) copied to
// output keys 2-3 (topic out), n values produced to the input, and the
// history the test's copiers record.
type copyRig struct {
	txnRig
	n int64
}

func newCopyRig(t *testing.T, n int64) *copyRig {
	t.Helper()
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "in", Partitions: 2}, {Name: "out", Partitions: 2}}})
	keys, err := client.NewKeyMap(map[histories.Key]client.TopicPartition{0: {Topic: "in", Partition: 0}, 1: {Topic: "in", Partition: 1}, 2: {Topic: "out", Partition: 0}, 3: {Topic: "out", Partition: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r := &copyRig{txnRig: txnRig{t: t, e: e, keys: keys, rec: client.NewMemRecorder()}, n: n}
	p, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: client.ProducerConfig{Acks: "all", Idempotence: true},
		Keys: keys, Recorder: r.rec, Processes: &r.procs})
	if err != nil {
		t.Fatal(err)
	}
	for v := range n {
		if typ := clienttest.SendOne(t, p, histories.Key(v%2), v); typ != histories.OK {
			t.Fatalf("send %d: %s", v, typ)
		}
	}
	p.Close(context.Background())
	return r
}

// copier opens a copier with transactional id id in group g, changed by
// edit; it is closed when the test ends.
func (r *copyRig) copier(edit func(*client.CopierOptions)) *Copier {
	r.t.Helper()
	opts := client.CopierOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Pairs: map[histories.Key]histories.Key{0: 2, 1: 3},
		Group: "copiers", Subscribe: true, TransactionalID: "copier", Seed: 5, CallTimeout: 5 * time.Second,
		Consumer: client.ConsumerConfig{SessionTimeout: 6 * time.Second}, Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	cp, err := NewCopier(r.t.Context(), opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cp.Close)
	return cp
}

// copied is how many input values the committed transactions of ops copied.
func copied(ops []histories.Op) int {
	n := 0
	for _, o := range ops {
		if o.F != histories.FTxn || o.Type != histories.OK {
			continue
		}
		for _, m := range o.Mops {
			if m.F == histories.MSend {
				n++
			}
		}
	}
	return n
}

// stepUntil steps cp until ops' committed transactions copied want
// values, at most 30 s.
func (r *copyRig) stepUntil(cp *Copier, want int) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for copied(r.rec.Ops()) < want {
		if time.Now().After(deadline) {
			r.t.Fatalf("%d of %d values copied in 30 s", copied(r.rec.Ops()), want)
		}
		if _, err := cp.Step(r.t.Context(), 4, 200*time.Millisecond); err != nil {
			r.t.Fatal(err)
		}
	}
}

// A franz-go copier copies every input value exactly once: its
// transactions, a third aborted on purpose, commit or fail (never info on
// a healthy cluster), the read_committed final reads hold each copy once
// and no poison, and the checker finds nothing.
func TestFranzCopierCopiesExactlyOnce(t *testing.T) {
	r := newCopyRig(t, 40)
	cp := r.copier(func(o *client.CopierOptions) { o.AbortProbability = 0.3 })
	r.stepUntil(cp, 40)
	ops := r.rec.Ops()
	if countTxns(ops, histories.Fail) == 0 || countTxns(ops, histories.Info) != 0 {
		t.Fatalf("%d aborted, %d unknown transactions: want aborts and no unknown one", countTxns(ops, histories.Fail), countTxns(ops, histories.Info))
	}
	cp.Close()
	final := r.Finish()
	for v := range r.n {
		// value v went to input key v%2 at offset v/2
		c, _ := histories.CopyValue(v, v/2)
		if !final[c] {
			t.Errorf("the copy of value %d is not in the final reads", v)
		}
	}
	t.Logf("%d transactions committed, %d aborted", countTxns(ops, histories.OK), countTxns(ops, histories.Fail))
}

// A copier crashed after its sends, before its end: the txn op is info,
// a crash op follows, and a successor with the same transactional.id
// fences it; the copy still ends exactly once (the checker and the final
// reads say so).
func TestFranzCopierCrashTakeover(t *testing.T) {
	r := newCopyRig(t, 30)
	a := r.copier(func(*client.CopierOptions) {})
	r.stepUntil(a, 5)
	a.Crash()
	var err error
	for err == nil {
		_, err = a.Step(t.Context(), 10, 200*time.Millisecond)
	}
	if !errors.Is(err, client.ErrCrashed) || !a.Crashed() || !a.NeedsFencing() {
		t.Fatalf("step: %v; want a crash that asks to be fenced", err)
	}
	aOps := clienttest.OpsOf(r.rec.Ops(), a.Process())
	last, txn := aOps[len(aOps)-1], aOps[len(aOps)-2]
	if last.F != histories.FCrash || txn.F != histories.FTxn || txn.Type != histories.Info {
		t.Fatalf("crashed copier ended with %+v then %+v; want an info txn, then its crash op", txn, last)
	}
	b := r.copier(func(*client.CopierOptions) {})
	r.stepUntil(b, 30)
	b.Close()
	final := r.Finish()
	for v := range r.n {
		if c, _ := histories.CopyValue(v, v/2); !final[c] {
			t.Errorf("the copy of value %d is not in the final reads", v)
		}
	}
}

// The copier tells a commit it sent from an abort it never asked for by
// kgo's log line "transaction session ending" (will_try_commit): were kgo
// to stop logging it, or rename it, an unconfirmed commit would be
// recorded fail, a claim that it cannot have taken effect. A step that
// committed must have been read from the log as tried, a step the copier
// aborted on purpose as not.
func TestFranzCopierReadsTheSessionsLogLine(t *testing.T) {
	r := newCopyRig(t, 10)
	cp := r.copier(func(*client.CopierOptions) {})
	typ, err := cp.Step(t.Context(), 4, 200*time.Millisecond)
	if err != nil || typ != histories.OK || !cp.triedCommit.Load() {
		t.Fatalf("committed step: %s %v; the log said it tried to commit: %v", typ, err, cp.triedCommit.Load())
	}
	cp.opts.AbortProbability = 1
	typ, err = cp.Step(t.Context(), 4, 200*time.Millisecond)
	if err != nil || typ != histories.Fail || cp.triedCommit.Load() {
		t.Fatalf("aborted step: %s %v; the log said it tried to commit: %v", typ, err, cp.triedCommit.Load())
	}
}
