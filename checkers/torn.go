package checkers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/histories"
)

// torn-transaction and interleaved-transaction: a committed transaction
// whose writes readers did not see as one unit. Jepsen's analysis of Kafka
// found both: a transaction's produce request delivered late, after the
// commit, lands inside the producer's next transaction, missing from its own
// and riding on the next.
//
// A txn op is committed when it is ok, or info and an ok op read one of the
// values it wrote (the same proof lost-write takes that an info op took
// effect). For each committed txn op T:
//
//   - torn-transaction (partially visible): an ok op read some of T's writes
//     (seen), and an ok op read none of others although readers covered them
//     (missing): an ok op read the key past the write's place in the version
//     order, or the final reads covered the key. One case per T, listing
//     seen and missing writes with their offsets (a write whose offset is
//     unknown is listed without).
//   - interleaved-transaction: on one key, a write of T sits at an offset
//     above a write of a later txn op T' of the same process (any outcome:
//     an aborted T' that swallowed T's write is as telling). A process runs
//     one op at a time, so T' began after T's commit completed. One case per
//     (T', key), against the earlier committed txn with the furthest write
//     on that key. Atomicity is broken, but the write is in the log; had
//     T' aborted and taken it, its loss is reported apart: unseen or
//     lost-write, and torn-transaction where T's other writes were read.
//     A write of T that is lost-after-read does not count: the log held it
//     and then lost it to a truncation (a power loss, an unclean election),
//     so later writes reuse offsets below it without landing inside T.
//
// Not flagged: aborted (fail) txns, whose visible writes are G1a; info txns
// none of whose writes were read, which may have aborted; writes on keys
// nobody read past and the final reads did not cover (unread, not missing);
// sends outside txn ops; txns of different processes, whose offsets
// interleave legitimately.
//
// A missing write whose place in the version order is at or below the read
// bound is also lost-write, and one an ok txn sent is also unseen. All are
// reported: lost-write and unseen say which record is gone, torn-transaction
// that its transaction committed without it, and the case's explanation says
// so. All are loss, so where lost-write or unseen report a missing write the
// guarantee is what they give; an info txn's write of unknown offset only
// this check can name.
//
// Cost: pass 2 visits each txn op's sends once; state is one entry per
// process and key.
type tornTxns struct {
	sink *caseSink
	// last is, per process and key, the committed txn op with the furthest
	// write seen so far: a later txn of that process must write beyond it.
	last  map[procKey]txnWrite
	spans []keySpan // scratch: the current op's writes, per key
	seen  []sendRef // scratch
	miss  []sendRef // scratch
}

type procKey struct{ process, key int64 }

// txnWrite is one write of a txn op: the op, its value and offset.
type txnWrite struct{ op, value, offset int64 }

// keySpan is the first write of one op on one key, by offset, and the last
// of its writes the log kept (hasLast false when it kept none).
type keySpan struct {
	key         int64
	first, last txnWrite
	hasLast     bool
}

func newTornTxns(sink *caseSink) *tornTxns {
	return &tornTxns{sink: sink, last: map[procKey]txnWrite{}}
}

func (t *tornTxns) visit(v *opView) {
	if v.op.F != histories.FTxn || len(v.sends) == 0 {
		return
	}
	committed := txnCommitted(v)
	if committed {
		t.partial(v)
	}
	t.interleaved(v, committed)
}

// txnCommitted reports whether v's txn certainly committed: ok, or info with
// a value of its own read by an ok op.
func txnCommitted(v *opView) bool {
	switch v.op.Type {
	case histories.OK:
		return true
	case histories.Info:
		for _, w := range v.sends {
			if s := w.ks.slots.at(w.slot); s.writer == v.op.Index && s.flags&readOK != 0 {
				return true
			}
		}
	}
	return false
}

// covered reports whether a reader would have returned w had it been in the
// log: an ok op read w's key past w's place, or the final reads covered it.
func covered(w sendRef) bool {
	return w.ks.finalFrom >= 0 || (w.idx >= 0 && w.idx <= w.ks.bound)
}

func (t *tornTxns) partial(v *opView) {
	t.seen, t.miss = t.seen[:0], t.miss[:0]
	for _, w := range v.sends {
		switch {
		case w.ks.slots.at(w.slot).flags&readOK != 0:
			t.seen = append(t.seen, w)
		case covered(w):
			t.miss = append(t.miss, w)
		}
	}
	if len(t.seen) == 0 || len(t.miss) == 0 {
		return
	}
	m := t.miss[0]
	var offs []int64
	for _, w := range t.miss {
		if o := w.logOffset(); o >= 0 {
			offs = append(offs, o)
		}
	}
	t.sink.add(TornTransaction, Case{
		Key: ptr(m.ks.key), Value: ptr(m.value), Offsets: offs,
		Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
		Explanation: fmt.Sprintf("txn op %d committed, and ok ops read %s, yet none read %s though readers covered those keys (each missing write is also lost-write or unseen where that rule applies)",
			v.op.Index, listWrites(t.seen), listWrites(t.miss)),
	})
}

// interleaved compares v's writes, key by key, with the furthest write of
// its process's earlier committed txns, then makes v that furthest write
// where it goes beyond.
func (t *tornTxns) interleaved(v *opView, committed bool) {
	t.spans = t.spans[:0]
	for _, w := range v.sends {
		if o := w.logOffset(); o >= 0 {
			t.addSpan(w.ks.key, txnWrite{v.op.Index, w.value, o}, !lostAfterRead(w.ks, w.slot))
		}
	}
	for _, sp := range t.spans {
		pk := procKey{v.op.Process, sp.key}
		prev, ok := t.last[pk]
		if ok && prev.offset > sp.first.offset {
			t.sink.add(InterleavedTransaction, Case{
				Key: ptr(sp.key), Value: ptr(prev.value), Offsets: []int64{prev.offset, sp.first.offset},
				Ops: []int64{prev.op, v.op.Index}, Process: ptr(v.op.Process),
				Explanation: fmt.Sprintf("txn op %d committed value %d of key %d at offset %d, above offset %d where the same process's later txn op %d wrote %d: the earlier transaction's write landed inside the later one (atomicity broken; nothing is lost unless the later one's abort took it, then torn-transaction)",
					prev.op, prev.value, sp.key, prev.offset, sp.first.offset, v.op.Index, sp.first.value),
			})
		}
		if committed && sp.hasLast && (!ok || sp.last.offset > prev.offset) {
			t.last[pk] = sp.last
		}
	}
}

// addSpan adds write w of key k to the current op's spans; kept says the
// log still holds it.
func (t *tornTxns) addSpan(k int64, w txnWrite, kept bool) {
	i := slices.IndexFunc(t.spans, func(sp keySpan) bool { return sp.key == k })
	if i < 0 {
		t.spans = append(t.spans, keySpan{key: k, first: w})
		i = len(t.spans) - 1
	} else if w.offset < t.spans[i].first.offset {
		t.spans[i].first = w
	}
	if sp := &t.spans[i]; kept && (!sp.hasLast || w.offset > sp.last.offset) {
		sp.last, sp.hasLast = w, true
	}
}

// maxListed caps the writes an explanation names; a copier's transaction
// can hold hundreds.
const maxListed = 8

// listWrites names writes as "value 3 of key 1 at offset 4", the first
// maxListed of them.
func listWrites(ws []sendRef) string {
	var b strings.Builder
	for i, w := range ws {
		if i == maxListed {
			fmt.Fprintf(&b, " and %d more", len(ws)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "value %d of key %d", w.value, w.ks.key)
		if o := w.logOffset(); o >= 0 {
			fmt.Fprintf(&b, " at offset %d", o)
		}
	}
	return b.String()
}
