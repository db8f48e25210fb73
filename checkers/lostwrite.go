package checkers

import "fmt"

// reportLostWrites finds lost-write and unseen values, key by key.
//
// lost-write is Jepsen's rule: take the furthest point of a key's version
// order that some ok op read (the bound); every value at or below it whose
// writer took effect (ok, or info and read) should have been read by some ok
// op. unseen is weaker: an ok send never read by any ok op, wherever it is.
func reportLostWrites(col *collector, ev *evidence, sink *caseSink) {
	for _, ks := range col.keyList {
		t := &ks.slots
		for s := int32(0); s < t.len(); s++ {
			f := t.at(s).flags
			if f&(readOK|merged) != 0 {
				continue
			}
			if f&committed != 0 {
				reportLost(ks, s, ev, sink)
			}
			if f&wOK != 0 {
				sink.add(Unseen, Case{
					Key: ptr(ks.key), Value: ptr(t.at(s).value), Offsets: offsetsOf(t.at(s).offset),
					Ops:         []int64{t.at(s).writer},
					Explanation: fmt.Sprintf("op %d's acknowledged send of %d to key %d was never returned by an ok poll", t.at(s).writer, t.at(s).value, ks.key),
				})
			}
		}
	}
}

func reportLost(ks *keyState, s int32, ev *evidence, sink *caseSink) {
	_, last := ks.idxRange(s)
	if last < 0 || last > ks.bound {
		return
	}
	t := &ks.slots
	ops := []int64{t.at(s).writer}
	boundOffset := ks.log.byIndex[ks.bound]
	if r, ok := ev.boundReader[ks.key]; ok {
		ops = append(ops, r)
	}
	sink.add(LostWrite, Case{
		Key: ptr(ks.key), Value: ptr(t.at(s).value), Offsets: []int64{t.at(s).offset, boundOffset},
		Ops:         ops,
		Explanation: fmt.Sprintf("value %d sent to key %d by op %d sits at offset %d, and ok ops read key %d up to offset %d, yet no ok op ever read it", t.at(s).value, ks.key, t.at(s).writer, t.at(s).offset, ks.key, boundOffset),
	})
}

// offsetsOf is o as a one-element list, or nil when unknown.
func offsetsOf(o int64) []int64 {
	if o < 0 {
		return nil
	}
	return []int64{o}
}
