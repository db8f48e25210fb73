package histories

import "fmt"

// A copier's value scheme. A copier copies each input record (offset o,
// value v) of an input key to the one output key paired with it, and the
// checkers judge the output keys like any other: one value at two offsets
// is a duplicate, a read of a value only a failed op sent is an aborted
// read (G1a). For those findings to mean what they say about the copier,
// every copy's value names what it is a copy of, in decimal digits so that
// a history stays integers (EDN, Jepsen) and a reader can see it:
//
//   - CopyValue(v, o) = o*CopyStride + v: the copy of input offset o. Every
//     transaction that copies that record writes this value, so a record
//     committed twice is one value at two offsets (a duplicate), while an
//     input value that an at-least-once producer wrote at two offsets is
//     copied to two values (the input key's duplicate, not the output's).
//   - PoisonValue(o, attempt) = -1 - (attempt*CopyStride + o): the copy of
//     input offset o written by a transaction aborted on purpose, attempt
//     being that transaction's txn op (its invoke's index). Negative, so no
//     committed copy writes it, and distinct per attempt, so a record whose
//     copy was aborted twice leaves two values, each naming its own aborted
//     transaction, never one value at two offsets.
//
// A transaction that fails without being aborted on purpose (a fenced
// producer, a failed commit) could not know it would fail: it wrote
// CopyValue, as a commit would have, and the checkers tell its copy from
// the committed one by the offsets the sends reported.
const CopyStride int64 = 10_000_000_000

// maxCopyHigh is the largest high part (offset or attempt) whose value
// fits an int64.
const maxCopyHigh = (1<<63-1)/CopyStride - 1

// CopyValue is the value a copier writes for input record (offset o,
// value v); it fails when v or o is outside the scheme's digits.
func CopyValue(v, o int64) (int64, error) {
	if v < 0 || v >= CopyStride || o < 0 || o > maxCopyHigh {
		return 0, fmt.Errorf("copy value: input value %d at offset %d is outside 0..%d at offsets 0..%d", v, o, CopyStride-1, maxCopyHigh)
	}
	return o*CopyStride + v, nil
}

// PoisonValue is the value a transaction aborted on purpose (its txn op
// invoked at index attempt) writes for input offset o; it fails when o or
// attempt is outside the scheme's digits.
func PoisonValue(o, attempt int64) (int64, error) {
	if o < 0 || o >= CopyStride || attempt < 0 || attempt > maxCopyHigh {
		return 0, fmt.Errorf("poison value: offset %d or attempt %d is outside 0..%d, 0..%d", o, attempt, CopyStride-1, maxCopyHigh)
	}
	return -1 - (attempt*CopyStride + o), nil
}

// CopyOf is the input record (offset, value) x copies, when x is a
// CopyValue; ok is false for a poisoned copy.
func CopyOf(x int64) (o, v int64, ok bool) {
	if x < 0 {
		return 0, 0, false
	}
	return x / CopyStride, x % CopyStride, true
}

// PoisonOf is the input offset and attempt of a PoisonValue x; ok is false
// for a committed copy.
func PoisonOf(x int64) (o, attempt int64, ok bool) {
	if x >= 0 {
		return 0, 0, false
	}
	p := -1 - x
	return p % CopyStride, p / CopyStride, true
}
