package checkers

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// rewrite is what is known of a value that a failed op sent and another op
// (ok, or info) sent again: a transactional copier re-copying a record after
// an abort, a rebalance or fencing. Slot flags are ORed per value, so without
// it every read of the committed copy would look like an aborted read.
type rewrite struct {
	failAt  []atOp  // failed sends of the value with a known offset
	failOps []int64 // every failed sender, in order
	okAt    []int64 // offsets of sends known to have taken effect
	// anyAt: a send that took effect has no known offset, so no read of
	// the value can be proven to be of the aborted copy by offset alone.
	anyAt   bool
	infoOps []int64 // info senders; those proven done count once sealed
	placed  []int64 // proven info senders whose offsets are in okAt
	writers int     // senders other than failed ones
}

// atOp is a send's offset and op.
type atOp struct {
	offset, op int64
}

// noteRewrite records, before merge folds the slots of one value (group,
// canonical slot first), what each send of it said, when a failed op and
// another op both sent it. It also makes a sender that is not failed the
// value's writer, preferring ok ones, so that dependency edges and
// explanations name the copy that counts.
func (ks *keyState) noteRewrite(group []valueSlot) {
	t := &ks.slots
	var all slotFlags
	for _, p := range group {
		all |= t.at(p.slot).flags
	}
	if all&wFail == 0 || all&(wOK|wInfo) == 0 {
		return
	}
	canon := group[0].slot
	if ks.rewrites[canon] != nil {
		// Merged before: canon's flags are already ORed, and the slots
		// merged now are info sends placed at seal (notePlaced).
		return
	}
	if ks.rewrites == nil {
		ks.rewrites = map[int32]*rewrite{}
	}
	rw := &rewrite{}
	ks.rewrites[canon] = rw
	var best slotRec
	best.writer = -1
	for _, p := range group {
		r := *t.at(p.slot)
		switch {
		case r.flags&wOK != 0:
			rw.writers++
			if r.offset == histories.NoOffset {
				rw.anyAt = true
			} else {
				rw.okAt = append(rw.okAt, r.offset)
			}
			if best.flags&wOK == 0 || r.writer > best.writer {
				best = r
			}
		case r.flags&wInfo != 0:
			rw.writers++
			rw.infoOps = append(rw.infoOps, r.writer)
			if best.flags&wOK == 0 && r.writer > best.writer {
				best = r
			}
		case r.flags&wFail != 0:
			rw.failOps = append(rw.failOps, r.writer)
		}
	}
	// absorb keeps the highest writer; the override runs after it.
	ks.preferWriter = append(ks.preferWriter, writerOf{canon, best.writer, best.node})
}

// writerOf is a writer to set on a canonical slot once merge has absorbed.
type writerOf struct {
	slot   int32
	writer int64
	node   int32
}

// applyPreferred sets the writers noteRewrite chose.
func (ks *keyState) applyPreferred() {
	for _, w := range ks.preferWriter {
		if w.writer >= 0 {
			ks.slots.at(w.slot).writer, ks.slots.at(w.slot).node = w.writer, w.node
		}
	}
	ks.preferWriter = ks.preferWriter[:0]
}

// rewriteOf returns the rewrite of value v, nil if it is none. Valid once
// merge has sorted the slots.
func (ks *keyState) rewriteOf(v int64) *rewrite {
	if ks.rewrites == nil {
		return nil
	}
	vs, ok := ks.slots.find(v)
	if !ok {
		return nil
	}
	return ks.rewrites[vs.slot]
}

// noteFailedAt adds a failed send's known offset to its value's rewrite.
func (ks *keyState) noteFailedAt(p pendingSend) {
	if rw := ks.rewriteOf(p.value); rw != nil {
		rw.failAt = append(rw.failAt, atOp{p.offset, p.op})
	}
	if e, ok := ks.log.get(p.offset); ok && e.val != p.value {
		if ks.abortedReused == nil {
			ks.abortedReused = map[int64]bool{}
		}
		ks.abortedReused[p.offset] = true
		ks.maybeAborted = true
	}
}

// notePlaced adds a proven info send's known offset to its value's rewrite.
func (ks *keyState) notePlaced(p pendingSend) {
	if rw := ks.rewriteOf(p.value); rw != nil {
		rw.okAt = append(rw.okAt, p.offset)
		rw.placed = append(rw.placed, p.op)
	}
}

// sealRewrites counts proven info senders whose offset is unknown.
func (ks *keyState) sealRewrites(infoDone map[int64]bool) {
	for _, rw := range ks.rewrites {
		for _, op := range rw.infoOps {
			if infoDone[op] && !slices.Contains(rw.placed, op) {
				rw.anyAt = true
			}
		}
	}
}

// aborted reports whether a read of the value at offset o read a copy a
// failed op wrote, and names that op: o is where a failed send of it landed,
// or no send that took effect is known to have landed at o.
func (rw *rewrite) aborted(o int64) (bool, int64) {
	for _, f := range rw.failAt {
		if f.offset == o {
			return true, f.op
		}
	}
	if rw.anyAt || slices.Contains(rw.okAt, o) {
		return false, -1
	}
	return true, rw.failOps[0]
}

// isRecopy reports whether slot s's value was sent by failed ops and by one
// other op: a copier retrying, not a history breaking the one-send-per-value
// rule.
func (ks *keyState) isRecopy(s int32) bool {
	rw := ks.rewrites[s]
	return rw != nil && rw.writers == 1
}
