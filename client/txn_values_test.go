package client

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// TestCopierAbortedTwiceIsNoDuplicate: the copier aborts on purpose, twice,
// transactions copying the same input records, then copies them for good.
// Final reads of read_uncommitted isolation see every aborted copy that
// reached the log: each is an aborted read naming the transaction that
// wrote it at that offset, and none is a duplicate, since no aborted copy
// took effect. (How many reach the log depends on timing: an abort purges
// the sends still queued, which then never have an offset.)
func TestCopierAbortedTwiceIsNoDuplicate(t *testing.T) {
	t.Parallel()
	const n = 6
	r := newCopyRig(t)
	r.produce(n)
	cp := r.copier(CopyTransactional, false, 1)
	for aborted, steps := 0, 0; aborted < 2; steps++ {
		typ, err := cp.Step(context.Background(), n, stepWait)
		if err != nil || typ == histories.Info || steps == 50 {
			t.Fatalf("step %d aborting on purpose: %s, %v (%d aborted)", steps, typ, err, aborted)
		}
		if typ == histories.Fail {
			aborted++
		}
	}
	cp.opts.AbortProbability = 0
	if err := r.run(cp, n, nil); err != nil {
		t.Fatal(err)
	}
	copiesName(t, r.rec.Ops(), r.pairs)
	writers := abortedWriters(r.rec.Ops())
	res, _ := r.finishReading(false)
	if res.Counts[checkers.Duplicate] != 0 {
		t.Fatalf("aborted copies reported as duplicates: %+v", res.Anomalies[checkers.Duplicate])
	}
	for _, a := range res.AnomalyTypes {
		if a != checkers.G1a {
			t.Errorf("unexpected %s: %+v", a, res.Anomalies[a])
		}
	}
	if len(writers) == 0 {
		t.Fatal("no aborted copy reached the log with a known offset: the test proves nothing")
	}
	aborted := map[int64]bool{}
	for _, w := range abortedTxns(r.rec.Ops()) {
		aborted[w] = true
	}
	read := map[keyOffset]bool{}
	for _, c := range res.Anomalies[checkers.G1a] {
		at := keyOffset{*c.Key, c.Offsets[0]}
		w, known := writers[at]
		switch {
		case known && c.Ops[1] != w:
			t.Errorf("aborted read at key %d offset %d names op %d, but op %d wrote there: %s", at.key, at.offset, c.Ops[1], w, c.Explanation)
		case !known && !aborted[c.Ops[1]]:
			// a purged send's record may still have landed: its case must
			// name an aborted transaction all the same.
			t.Errorf("aborted read at key %d offset %d names op %d, no aborted transaction: %s", at.key, at.offset, c.Ops[1], c.Explanation)
		}
		read[at] = true
	}
	for at, w := range writers {
		if !read[at] {
			t.Errorf("op %d's aborted copy at key %d offset %d was never reported read", w, at.key, at.offset)
		}
	}
}

// abortedTxns are the indexes of the failed txn ops.
func abortedTxns(ops []histories.Op) []int64 {
	var out []int64
	for _, o := range ops {
		if o.F == histories.FTxn && o.Type == histories.Fail {
			out = append(out, o.Index)
		}
	}
	return out
}

type keyOffset struct{ key, offset int64 }

// abortedWriters maps each offset a failed txn's send landed at to that op.
func abortedWriters(ops []histories.Op) map[keyOffset]int64 {
	out := map[keyOffset]int64{}
	for _, o := range ops {
		if o.F != histories.FTxn || o.Type != histories.Fail {
			continue
		}
		for _, m := range o.Mops {
			if m.F == histories.MSend && m.Offset >= 0 {
				out[keyOffset{m.Key, m.Offset}] = o.Index
			}
		}
	}
	return out
}

// copiesName fails unless every send of every txn op is the copy of a
// record that op read (histories.CopyValue), or, in a transaction aborted
// on purpose, its poisoned copy naming the op's invoke as the attempt
// (histories.PoisonValue), one send per record read.
func copiesName(t *testing.T, ops []histories.Op, pairs map[histories.Key]histories.Key) {
	t.Helper()
	invoked := map[int64]int64{} // process -> index of its open txn invoke
	for _, o := range ops {
		if o.F != histories.FTxn {
			continue
		}
		if o.Type == histories.Invoke {
			invoked[o.Process] = o.Index
			continue
		}
		read := map[keyOffset]int64{}
		for k, recs := range o.Mops[0].Records {
			for _, rec := range recs {
				read[keyOffset{pairs[k], rec.Offset}] = rec.Value
			}
		}
		sends := 0
		for _, m := range o.Mops[1:] {
			if m.F != histories.MSend {
				continue
			}
			sends++
			off, v, isCopy := histories.CopyOf(m.Value)
			if !isCopy {
				var attempt int64
				off, attempt, _ = histories.PoisonOf(m.Value)
				v = read[keyOffset{m.Key, off}]
				if o.Error != ErrAbortedOnPurpose.Error() || attempt != invoked[o.Process] {
					t.Errorf("op %d (%s, %q) sent poisoned value %d of attempt %d; its invoke is op %d", o.Index, o.Type, o.Error, m.Value, attempt, invoked[o.Process])
				}
			}
			if got, ok := read[keyOffset{m.Key, off}]; !ok || got != v {
				t.Errorf("op %d sent %d to key %d: a copy of offset %d value %d, which it did not read (%v)", o.Index, m.Value, m.Key, off, v, o.Mops[0].Records)
			}
		}
		if sends > 0 && sends != len(read) {
			t.Errorf("op %d read %d records and sent %d copies", o.Index, len(read), sends)
		}
	}
}

// TestCopierStopsOnARecordOutsideTheScheme: an input value the copy scheme
// cannot name (>= histories.CopyStride) is never written as an ambiguous
// copy: the copier records its txn failed, sends nothing, and stops.
func TestCopierStopsOnARecordOutsideTheScheme(t *testing.T) {
	t.Parallel()
	r := newCopyRig(t)
	p, err := NewProducer(ProducerOptions{Bootstrap: r.e.Bootstrap(), Config: ProducerConfig{Acks: "all", Idempotence: true},
		Keys: r.keys, Recorder: r.rec, Processes: &r.procs})
	if err != nil {
		t.Fatal(err)
	}
	if typ, err := p.Send(context.Background(), 0, histories.CopyStride); typ != histories.OK {
		t.Fatalf("send: %s %v", typ, err)
	}
	p.Close(context.Background())
	cp := r.copier(CopyTransactional, false, 0)
	took, err := stepUntilError(t, cp)
	if !errors.Is(err, ErrCopierStopped) {
		t.Fatalf("step after %v: %v; want the copier stopped", took, err)
	}
	ops := clienttest.OpsOf(r.rec.Ops(), cp.Process())
	last := ops[len(ops)-1]
	if last.F != histories.FTxn || last.Type != histories.Fail || len(last.Mops) != 1 || !strings.Contains(last.Error, "outside") {
		t.Fatalf("last op %+v: want a failed txn that only polled, naming the value outside the scheme", last)
	}
}
