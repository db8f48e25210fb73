package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// txnReads finds G1a (an ok op read a value whose sending op failed) and
// precommitted-read (an op read a value it sent itself).
type txnReads struct {
	sink *caseSink
}

func (t *txnReads) visit(v *opView) {
	t.aborted(v)
	t.precommitted(v)
}

// aborted follows Jepsen's g1a-cases: only ok reads count, since a failed or
// indefinite poll proves nothing about what was visible to committed readers.
// A value that a failed op and another op both sent (a copier's re-copy) is
// judged by the offset read (rewrite.aborted).
func (t *txnReads) aborted(v *opView) {
	if v.op.Type != histories.OK {
		return
	}
	for _, r := range v.reads {
		st := &r.ks.slots
		if st.at(r.slot).flags&wFail == 0 {
			continue
		}
		w := st.at(r.slot).writer
		if rw := r.ks.rewrites[r.slot]; rw != nil {
			var isAborted bool
			if isAborted, w = rw.aborted(r.offset); !isAborted {
				continue
			}
		}
		t.sink.add(G1a, Case{
			Key: ptr(r.ks.key), Value: ptr(r.value), Offsets: []int64{r.offset},
			Ops:         []int64{v.op.Index, w},
			Process:     ptr(v.op.Process),
			Explanation: fmt.Sprintf("op %d read value %d of key %d, which op %d sent in a transaction or send that failed", v.op.Index, r.value, r.ks.key, w),
		})
	}
}

// precommitted follows Jepsen's precommitted-read-cases: Kafka hides a
// transaction's records from every poller, its own consumer included, until
// the transaction commits, so an op can never read back its own sends. One
// case per op, for its first such read.
func (t *txnReads) precommitted(v *opView) {
	if len(v.sends) == 0 || len(v.reads) == 0 {
		return
	}
	for _, r := range v.reads {
		if r.ks.slots.at(r.slot).writer != v.op.Index {
			continue
		}
		t.sink.add(PrecommittedRead, Case{
			Key: ptr(r.ks.key), Value: ptr(r.value), Offsets: []int64{r.offset},
			Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
			Explanation: fmt.Sprintf("op %d read value %d of key %d, which it sent itself before committing", v.op.Index, r.value, r.ks.key),
		})
		return
	}
}
