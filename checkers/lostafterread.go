package checkers

import (
	"bytes"
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// lost-after-read: a record some ok op read that the final reads, which read
// the key from its beginning to its end after every fault healed, no longer
// contain. Kafka truncated it away (an unclean election, or a leader that
// acknowledged with an in-sync set of one). lost-write and unseen cannot see
// it: the record was read, so it is neither skipped nor unread.
//
// Final reads are marked in the history by Extra["final"] = true on their
// ops (the client's FinalReads and the simulator do so). A key is covered
// from the first ok final assign that names it; only reads completed before
// that assign count, because the final reads read to the high watermark they
// saw when they began, and a record read earlier was below it then.

// finalExtra is the Extra field that marks the ops of the final reads.
const finalExtra = "final"

// isFinal reports whether op belongs to the final reads. The EDN importer
// keeps an extra value as its EDN text in a JSON string, so a history that
// went through EDN carries "true" instead of true.
func isFinal(op *histories.Op) bool {
	v, ok := op.Extra[finalExtra]
	if !ok {
		return false
	}
	switch string(bytes.TrimSpace(v)) {
	case "true", `"true"`:
		return true
	}
	return false
}

// coverFinal notes the keys an ok final assign names.
func (c *collector) coverFinal(op *histories.Op) {
	for _, k := range op.Keys {
		if ks := c.key(k); ks.finalFrom < 0 {
			ks.finalFrom, ks.finalOp = op.Index, op.Index
		}
	}
}

// readFlags are the flags a record of ks returned by op gets when op is ok.
func readFlags(ks *keyState, op *histories.Op, final bool) slotFlags {
	switch {
	case op.Type != histories.OK:
		return 0
	case final:
		ks.finalOp = max(ks.finalOp, op.Index)
		return readOK | readFinal
	case ks.finalFrom < 0:
		return readOK | readEarly
	}
	return readOK
}

// lostAfterRead reports whether slot s of ks is a lost-after-read value: on
// a key the final reads covered, read by an ok op before them, not read by
// them, and certainly in the log: its writer is ok, or info and not a
// transaction. A failed writer's record was aborted (read_committed final
// reads skip it), an info txn's may have been, and a value no completed op
// sent proves nothing.
func lostAfterRead(ks *keyState, s int32) bool {
	f := ks.slots.at(s).flags
	if ks.finalFrom < 0 || f&(merged|readFinal) != 0 || f&readEarly == 0 {
		return false
	}
	return f&wOK != 0 || f&(wInfo|wFail|wTxn) == wInfo
}

// earlyReaders remembers, during pass 2, the first ok op that read each
// lost-after-read value. Keys the final reads did not cover cost one branch
// per record.
type earlyReaders struct {
	first map[slotKey]int64
}

// slotKey names one value of one key by its canonical slot.
type slotKey struct {
	key  int64
	slot int32
}

func newEarlyReaders() *earlyReaders { return &earlyReaders{first: map[slotKey]int64{}} }

func (e *earlyReaders) visit(v *opView) {
	if v.op.Type != histories.OK {
		return
	}
	for _, r := range v.reads {
		if r.slot < 0 || r.ks.finalFrom < 0 || !lostAfterRead(r.ks, r.slot) {
			continue
		}
		k := slotKey{r.ks.key, r.slot}
		if _, ok := e.first[k]; !ok {
			e.first[k] = v.op.Index
		}
	}
}

// reportLostAfterRead adds a case per lost-after-read value, key by key.
func reportLostAfterRead(col *collector, readers *earlyReaders, sink *caseSink) {
	for _, ks := range col.keyList {
		if ks.finalFrom < 0 {
			continue
		}
		for s := int32(0); s < ks.slots.len(); s++ {
			if lostAfterRead(ks, s) {
				reader, ok := readers.first[slotKey{ks.key, s}]
				if !ok {
					reader = -1 // unreachable: readEarly means pass 2 saw an ok read
				}
				sink.add(LostAfterRead, lostAfterReadCase(ks, s, reader))
			}
		}
	}
}

func lostAfterReadCase(ks *keyState, s int32, reader int64) Case {
	r := ks.slots.at(s)
	how := "acknowledged"
	if r.flags&wOK == 0 {
		how = fmt.Sprintf("sent by op %d (outcome unknown)", r.writer)
	}
	ops := []int64{r.writer}
	if reader >= 0 {
		ops = append(ops, reader)
	}
	return Case{
		Key: ptr(ks.key), Value: ptr(r.value), Offsets: offsetsOf(r.offset),
		Ops: append(ops, ks.finalOp),
		Explanation: fmt.Sprintf("value %d of key %d was %s at offset %d and read by op %d, but the final reads of key %d (op %d) no longer contain it: the log lost it",
			r.value, ks.key, how, r.offset, reader, ks.key, ks.finalOp),
	}
}
