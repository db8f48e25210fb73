package checkers

import "github.com/kafkachaos/kafkachaos/histories"

// obsKey names one observation: value at offset of key.
type obsKey struct {
	key, offset, value int64
}

// evidence remembers, during pass 2, the ops that prove findings pass 1
// already made: the first observer of each value at a conflicting offset or
// at each offset of a duplicated value, and the first ok op that read each
// key up to its read bound. It only looks at keys with such findings, so a
// clean history costs it one branch per record.
type evidence struct {
	observer    map[obsKey]int64
	boundReader map[int64]int64
}

func newEvidence() *evidence {
	return &evidence{observer: map[obsKey]int64{}, boundReader: map[int64]int64{}}
}

func (e *evidence) visit(v *opView) {
	op := v.op
	for _, r := range v.reads {
		e.observe(r.ks, r.offset, r.value, r.slot, op.Index)
		if op.Type == histories.OK && r.idx == r.ks.bound {
			if _, ok := e.boundReader[r.ks.key]; !ok {
				e.boundReader[r.ks.key] = op.Index
			}
		}
	}
	if op.Type == histories.Fail {
		return
	}
	for _, w := range v.sends {
		if w.offset >= 0 {
			e.observe(w.ks, w.offset, w.value, w.slot, op.Index)
		}
	}
}

func (e *evidence) observe(ks *keyState, offset, value int64, slot int32, op int64) {
	if len(ks.conflicts) == 0 && len(ks.dups) == 0 {
		return
	}
	_, conflict := ks.conflicts[offset]
	_, dup := ks.dups[slot]
	if !conflict && !dup {
		return
	}
	k := obsKey{ks.key, offset, value}
	if _, ok := e.observer[k]; !ok {
		e.observer[k] = op
	}
}

// opsFor lists the first observers of the given observations, skipping
// unknown ones and repeats.
func (e *evidence) opsFor(keys ...obsKey) []int64 {
	ops := []int64{}
	for _, k := range keys {
		if op, ok := e.observer[k]; ok && !containsKey(ops, op) {
			ops = append(ops, op)
		}
	}
	return ops
}
