package checkers

// A read_uncommitted consumer returns records of aborted transactions, so
// they enter the version order (every poll counts); a read_committed consumer
// of the same key passes over them, as it must. Records a failed op wrote
// therefore never count as skipped: not by poll-skip or int-poll-skip, and
// not by lost-delivery. Transaction markers are not records either, but they
// are never in the version order in the first place.
//
// Nor do records the log lost after they were read (lost-after-read): a
// truncated log writes their offsets again, with other records, aborted
// ones or transaction markers, that a reader of the rewritten log passes
// over. A reader that passed over such a record before the truncation is
// excused too; lost-after-read and inconsistent-offsets report the loss.

// isAbortedRecord reports whether the record at dense index i was written by
// a failed op: its value's only senders failed, or it sits where a failed
// send of a re-sent value landed (rewrite.aborted), or the log lost the
// offset and wrote it again with a failed op's record (abortedWhenReused).
func (ks *keyState) isAbortedRecord(i int32) bool {
	_, s := ks.log.valueAt(i)
	if ks.slots.at(s).flags&wFail == 0 {
		return ks.abortedWhenReused(ks.log.byIndex[i])
	}
	rw := ks.rewrites[s]
	if rw == nil {
		return true
	}
	aborted, _ := rw.aborted(ks.log.byIndex[i])
	return aborted
}

// abortedWhenReused reports whether a failed op's send was acknowledged at
// offset o although the version order holds another record there: a
// truncated log wrote the offset again with that aborted record, and a
// read_committed reader of the rewritten log passes over it. A reader that
// passed over o before the truncation is excused too; inconsistent-offsets
// or lost-after-read report the rewrite.
func (ks *keyState) abortedWhenReused(o int64) bool { return ks.abortedReused[o] }

// passable reports whether a reader may pass over the record at dense index
// i without skipping it: it was aborted, or the log lost it after it was read.
func (ks *keyState) passable(i int32) bool {
	if ks.isAbortedRecord(i) {
		return true
	}
	_, s := ks.log.valueAt(i)
	return lostAfterRead(ks, s)
}

// countPassable fills passableBefore, only for a key that may have aborted
// records in its version order (collector.seal sets maybeAborted) or that
// the final reads covered, so that most keys of a history without final
// reads cost nothing.
func (ks *keyState) countPassable() {
	if !ks.maybeAborted && ks.finalFrom < 0 {
		return
	}
	n := int32(len(ks.log.byIndex))
	var prefix []int32
	for i := int32(0); i < n; i++ {
		if !ks.passable(i) {
			continue
		}
		if prefix == nil {
			prefix = make([]int32, n+1)
		}
		prefix[i+1] = 1
	}
	if prefix == nil {
		return
	}
	for i := int32(1); i <= n; i++ {
		prefix[i] += prefix[i-1]
	}
	ks.passableBefore = prefix
}

// skipped is how many records lie strictly between dense indexes i1 < i2
// that a reader moving from i1 to i2 must have passed over, passable records
// aside. Either index unknown: 0.
func (ks *keyState) skipped(i1, i2 int32) int32 {
	if i1 < 0 || i2 <= i1+1 {
		return 0
	}
	n := i2 - i1 - 1
	if ks.passableBefore != nil {
		n -= ks.passableBefore[i2] - ks.passableBefore[i1+1]
	}
	return n
}
