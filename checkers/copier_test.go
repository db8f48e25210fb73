package checkers

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Copier histories: input key 0 copied to output key 1 with the copier's
// value scheme, so that each history below is what a copier writes.
const (
	inKey  = 0
	outKey = 1
)

// copyOf is the committed copy of input record (offset o, value v).
func copyOf(v, o int64) int64 {
	c, err := histories.CopyValue(v, o)
	if err != nil {
		panic(err)
	}
	return c
}

// poisonOf is the copy of input offset o that the attempt (txn op)
// aborting on purpose writes.
func poisonOf(o, attempt int64) int64 {
	p, err := histories.PoisonValue(o, attempt)
	if err != nil {
		panic(err)
	}
	return p
}

// copyTxn appends a txn op of copier process 1 of type typ that polled
// input records (offset, value pairs) and sent their copies (poisoned for
// its attempt when poison) to the output offsets at, committing the input
// past the last.
func copyTxn(h *hist, typ histories.Type, poison bool, at []int64, ov ...int64) int64 {
	return copyTxnOf(h, 1, typ, poison, at, ov...)
}

// copyTxnOf is copyTxn of copier process p.
func copyTxnOf(h *hist, p int64, typ histories.Type, poison bool, at []int64, ov ...int64) int64 {
	attempt := int64(len(h.ops))
	mops := []histories.Mop{pl(inKey, ov...)}
	for i := 0; i+1 < len(ov); i += 2 {
		v := copyOf(ov[i+1], ov[i])
		if poison {
			v = poisonOf(ov[i], attempt)
		}
		mops = append(mops, snd(outKey, v, at[i/2]))
	}
	mops = append(mops, cm(inKey, ov[len(ov)-2]+1))
	i := h.op(p, typ, histories.FTxn, mops...)
	h.last().Group = "copy"
	return i
}

// A read_uncommitted reader sees both poisoned copies of one input record
// that two transactions aborted on purpose wrote: two aborted reads, each
// naming the transaction that wrote what it read, and no duplicate, since
// neither copy took effect.
func TestCopierAbortedTwiceIsNoDuplicate(t *testing.T) {
	h := &hist{}
	h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
	a := copyTxn(h, fail, true, []int64{0}, 0, 5)
	b := copyTxn(h, fail, true, []int64{1}, 0, 5)
	copyTxn(h, ok, false, []int64{2}, 0, 5)
	h.op(2, ok, histories.FPoll, pl(outKey, 0, poisonOf(0, a), 1, poisonOf(0, b), 2, copyOf(5, 0)))
	res := check(t, h, Options{})
	expectOnly(t, res, G1a)
	byOffset := map[int64]int64{}
	for _, c := range res.Anomalies[G1a] {
		byOffset[c.Offsets[0]] = c.Ops[1]
	}
	if byOffset[0] != a || byOffset[1] != b || len(byOffset) != 2 {
		t.Fatalf("aborted reads name writers %v by offset, want offset 0 -> op %d, 1 -> op %d", byOffset, a, b)
	}
}

// An at-least-once producer wrote input value 5 twice (offsets 0 and 1):
// a duplicate on the input key. The copier copies offset 0 in a
// transaction that failed (not on purpose, so not poisoned), then again
// committed, and offset 1 in a transaction whose commit's outcome is
// unknown; the output holds one copy of each input record. A read of the
// copy of offset 1 is no aborted read, and the output holds no duplicate.
func TestCopierDuplicatedInputIsNoAbortedRead(t *testing.T) {
	h := &hist{}
	h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
	copyTxn(h, fail, false, []int64{0}, 0, 5)
	copyTxn(h, ok, false, []int64{1}, 0, 5)
	copyTxn(h, info, false, []int64{2}, 1, 5)
	h.op(2, ok, histories.FPoll, pl(inKey, 0, 5, 1, 5), pl(outKey, 1, copyOf(5, 0), 2, copyOf(5, 1)))
	res := check(t, h, Options{})
	expectOnly(t, res, Duplicate)
	if c := only(t, res, Duplicate); *c.Key != inKey {
		t.Fatalf("duplicate on key %d, want the input key %d: %s", *c.Key, inKey, c.Explanation)
	}
}

// Must and must-not cases of the copier's end-to-end check on the scheme.
func TestCopierCases(t *testing.T) {
	runPairs(t, []pair{
		{
			name: "a record committed twice is a duplicate of its copy",
			bad: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, ok, false, []int64{0}, 0, 5)
				copyTxnOf(h, 3, ok, false, []int64{1}, 0, 5)
				h.op(2, ok, histories.FPoll, pl(outKey, 0, copyOf(5, 0), 1, copyOf(5, 0)))
			},
			good: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, fail, true, []int64{0}, 0, 5)
				copyTxn(h, ok, false, []int64{1}, 0, 5)
				h.op(2, ok, histories.FPoll, pl(outKey, 1, copyOf(5, 0)))
			},
			want: []Anomaly{Duplicate, DuplicateDelivery},
		},
		{
			name: "a read of a poisoned copy is an aborted read of its attempt",
			bad: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, fail, true, []int64{0}, 0, 5)
				copyTxn(h, ok, false, []int64{1}, 0, 5)
				h.op(2, ok, histories.FPoll, pl(outKey, 0, poisonOf(0, 1), 1, copyOf(5, 0)))
			},
			good: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, fail, true, []int64{0}, 0, 5)
				copyTxn(h, ok, false, []int64{1}, 0, 5)
				h.op(2, ok, histories.FPoll, pl(outKey, 1, copyOf(5, 0)))
			},
			want: []Anomaly{G1a},
			ops:  []int64{3, 1},
		},
		{
			name: "an input value written twice is copied to two values",
			bad: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, fail, true, []int64{0}, 1, 5)
				copyTxn(h, ok, false, []int64{1, 2}, 0, 5, 1, 5)
				h.op(2, ok, histories.FPoll, pl(inKey, 0, 5, 1, 5), pl(outKey, 1, copyOf(5, 0), 2, copyOf(5, 1)))
			},
			good: func(h *hist) {
				h.op(0, ok, histories.FSend, snd(inKey, 5, 0))
				copyTxn(h, fail, true, []int64{0}, 0, 5)
				copyTxn(h, ok, false, []int64{1}, 0, 5)
				h.op(2, ok, histories.FPoll, pl(inKey, 0, 5), pl(outKey, 1, copyOf(5, 0)))
			},
			want: []Anomaly{Duplicate}, // on the input key only: the send and a read of offset 1
			ops:  []int64{0, 1},
		},
	})
}

// copyRun is a copier's history drawn step by step: an input log (some
// value written twice, as an at-least-once producer does), transactions
// that commit, abort on purpose (poisoned), fail by an error (copies as
// a commit would write them, their offsets known or not) or commit with
// an unknown outcome (info), each resuming from the committed input
// offset, and read_committed final reads of both keys. Only the last
// transaction may be info: the group's records an info txn polled count
// as processed by no member, so an ok commit past them would be
// lost-delivery.
type copyRun struct {
	h     *hist
	in    []int64    // input values by offset
	out   []outEntry // output log
	pos   int64      // the group's committed input offset
	okPos int64      // the highest input offset an ok txn committed
}

// outEntry is a copy in the output log: its value, whether its transaction
// committed, and the op that wrote it.
type outEntry struct {
	value     int64
	committed bool
	op        int64
}

// Outcomes of a drawn copier transaction.
const (
	outcomeCommit = iota
	outcomePoison
	outcomeError
	outcomeInfo
)

func drawCopyRun(t *rapid.T) *copyRun {
	r := &copyRun{h: &hist{}}
	n := rapid.IntRange(1, 8).Draw(t, "records")
	for i := range n {
		v := int64(100 + i)
		if i > 0 && rapid.IntRange(0, 4).Draw(t, "again") == 0 {
			v = r.in[rapid.IntRange(0, i-1).Draw(t, "of")] // written again: no send op of its own
		} else {
			r.h.op(0, ok, histories.FSend, snd(inKey, v, int64(i)))
		}
		r.in = append(r.in, v)
	}
	for tries := 0; r.pos < int64(n); tries++ {
		size := rapid.IntRange(1, n-int(r.pos)).Draw(t, "size")
		outcome := outcomeCommit
		if tries < 12 {
			outcome = rapid.IntRange(outcomeCommit, outcomeInfo).Draw(t, "outcome")
		}
		if outcome == outcomeInfo && r.pos+int64(size) < int64(n) {
			outcome = outcomeCommit
		}
		r.step(t, 1, size, outcome)
	}
	return r
}

// step appends one transaction of copier process p copying size records
// from pos.
func (r *copyRun) step(t *rapid.T, p int64, size, outcome int) {
	attempt := int64(len(r.h.ops))
	mops := []histories.Mop{pl(inKey)}
	for o := r.pos; o < r.pos+int64(size); o++ {
		mops[0].Records[inKey] = append(mops[0].Records[inKey], histories.Record{Offset: o, Value: r.in[o]})
		v := copyOf(r.in[o], o)
		if outcome == outcomePoison {
			v = poisonOf(o, attempt)
		}
		at := int64(len(r.out))
		if outcome == outcomeError && rapid.Bool().Draw(t, "offset unknown") {
			at = histories.NoOffset
		}
		mops = append(mops, snd(outKey, v, at))
		r.out = append(r.out, outEntry{v, outcome == outcomeCommit || outcome == outcomeInfo, attempt})
	}
	typ := map[int]histories.Type{outcomeCommit: ok, outcomePoison: fail, outcomeError: fail, outcomeInfo: info}[outcome]
	mops = append(mops, cm(inKey, r.pos+int64(size)))
	r.h.op(p, typ, histories.FTxn, mops...)
	r.h.last().Group = "copy"
	if typ != fail {
		r.pos += int64(size)
	}
	if typ == ok {
		r.okPos = max(r.okPos, r.pos)
	}
}

// finalReads appends read_committed reads of the input and the output.
func (r *copyRun) finalReads() {
	var in, out []int64
	for o, v := range r.in {
		in = append(in, int64(o), v)
	}
	for o, e := range r.out {
		if e.committed {
			out = append(out, int64(o), e.value)
		}
	}
	r.h.op(2, ok, histories.FPoll, pl(inKey, in...), pl(outKey, out...))
}

// inputDuplicates is how many input values were written at more than one
// offset.
func (r *copyRun) inputDuplicates() int64 {
	times, n := map[int64]int{}, int64(0)
	for _, v := range r.in {
		if times[v]++; times[v] == 2 {
			n++
		}
	}
	return n
}

// outputCases are the cases of a on the output key.
func outputCases(res Result, a Anomaly) []Case {
	var out []Case
	for _, c := range res.Anomalies[a] {
		if c.Key != nil && *c.Key == outKey {
			out = append(out, c)
		}
	}
	return out
}

// A copier's history on the scheme checks clean but for the input's own
// duplicates, and each planted anomaly is found where it was planted: a
// record committed a second time is a duplicate of its copy on the output
// key, and an ok read of one poisoned copy is one aborted read naming the
// transaction that wrote it.
func TestPropertyCopierScheme(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawCopyRun(t)
		plant := rapid.SampledFrom([]string{"none", "recommit", "aborted-read"}).Draw(t, "plant")
		var poisoned []int
		for o, e := range r.out {
			if e.value < 0 {
				poisoned = append(poisoned, o)
			}
		}
		var want outEntry
		switch plant {
		case "recommit":
			if r.okPos == 0 {
				t.Skip("no record committed by an ok txn")
			}
			r.pos = int64(rapid.IntRange(0, int(r.okPos)-1).Draw(t, "recopy"))
			want = outEntry{value: copyOf(r.in[r.pos], r.pos)}
			size := rapid.IntRange(1, int(r.okPos-r.pos)).Draw(t, "size")
			r.step(t, 3, size, outcomeCommit) // a successor copier re-copies
		case "aborted-read":
			if len(poisoned) == 0 {
				t.Skip("no poisoned copy to read")
			}
			o := poisoned[rapid.IntRange(0, len(poisoned)-1).Draw(t, "read")]
			want = r.out[o]
			r.h.op(4, ok, histories.FPoll, pl(outKey, int64(o), want.value))
		}
		r.finalReads()
		res, err := Check(Ops(r.h.ops), Options{})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		if got := res.Counts[Duplicate] - int64(len(outputCases(res, Duplicate))); got != r.inputDuplicates() {
			t.Fatalf("%d duplicates on the input key, want %d: %v", got, r.inputDuplicates(), res.Anomalies[Duplicate])
		}
		dups, g1a := outputCases(res, Duplicate), res.Anomalies[G1a]
		switch plant {
		case "none":
			if len(dups) > 0 || len(g1a) > 0 || len(res.AnomalyTypes) > 1 || (len(res.AnomalyTypes) == 1 && r.inputDuplicates() == 0) {
				t.Fatalf("clean copy judged %v: %v", res.AnomalyTypes, res.Anomalies)
			}
		case "recommit":
			if len(dups) == 0 || *dups[0].Value != want.value || res.Counts[DuplicateDelivery] == 0 {
				t.Fatalf("records committed twice: want duplicates on the output key, the first of value %d, and duplicate deliveries, got %v", want.value, res.Anomalies)
			}
		case "aborted-read":
			if len(g1a) != 1 || len(dups) != 0 || g1a[0].Ops[1] != want.op {
				t.Fatalf("a read of the poisoned copy %d of op %d: want one aborted read naming it, got %v", want.value, want.op, res.Anomalies)
			}
		}
	})
}
