package checkers

// A read_uncommitted consumer returns records of aborted transactions, so
// they enter the version order (every poll counts); a read_committed consumer
// of the same key passes over them, as it must. Records a failed op wrote
// therefore never count as skipped: not by poll-skip or int-poll-skip, and
// not by lost-delivery. Transaction markers are not records either, but they
// are never in the version order in the first place.

// isAbortedRecord reports whether the record at dense index i was written by
// a failed op: its value's only senders failed, or it sits where a failed
// send of a re-sent value landed (rewrite.aborted).
func (ks *keyState) isAbortedRecord(i int32) bool {
	_, s := ks.log.valueAt(i)
	if ks.slots.at(s).flags&wFail == 0 {
		return false
	}
	rw := ks.rewrites[s]
	if rw == nil {
		return true
	}
	aborted, _ := rw.aborted(ks.log.byIndex[i])
	return aborted
}

// countAborted fills abortedBefore, only for a key that may have aborted
// records in its version order (collector.seal sets maybeAborted), so that
// most keys cost nothing.
func (ks *keyState) countAborted() {
	if !ks.maybeAborted {
		return
	}
	n := int32(len(ks.log.byIndex))
	var prefix []int32
	for i := int32(0); i < n; i++ {
		if !ks.isAbortedRecord(i) {
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
	ks.abortedBefore = prefix
}

// skipped is how many records lie strictly between dense indexes i1 < i2
// that a reader moving from i1 to i2 must have passed over, aborted records
// aside. Either index unknown: 0.
func (ks *keyState) skipped(i1, i2 int32) int32 {
	if i1 < 0 || i2 <= i1+1 {
		return 0
	}
	n := i2 - i1 - 1
	if ks.abortedBefore != nil {
		n -= ks.abortedBefore[i2] - ks.abortedBefore[i1+1]
	}
	return n
}
