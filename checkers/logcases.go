package checkers

import (
	"fmt"
	"maps"
	"slices"
)

// reportLogCases turns the version-order disagreements found in pass 1 into
// inconsistent-offsets (two values at one offset) and duplicate (one value at
// two offsets) cases, with the ops that observed each side.
func reportLogCases(col *collector, ev *evidence, sink *caseSink) {
	for _, ks := range col.keyList {
		reportConflicts(ks, ev, sink)
		reportDuplicates(ks, ev, sink)
	}
}

func reportConflicts(ks *keyState, ev *evidence, sink *caseSink) {
	for _, o := range slices.Sorted(maps.Keys(ks.conflicts)) {
		first, _ := ks.log.get(o)
		values := append([]int64{first.val}, ks.conflicts[o]...)
		obs := make([]obsKey, len(values))
		for i, v := range values {
			obs[i] = obsKey{ks.key, o, v}
		}
		sink.add(InconsistentOffsets, Case{
			Key: ptr(ks.key), Offsets: []int64{o}, Ops: ev.opsFor(obs...),
			Explanation: fmt.Sprintf("offset %d of key %d was seen holding %d different values %v", o, ks.key, len(values), values),
		})
	}
}

func reportDuplicates(ks *keyState, ev *evidence, sink *caseSink) {
	for _, s := range slices.Sorted(maps.Keys(ks.dups)) {
		v := ks.slots.at(s).value
		offs := append([]int64{ks.slots.at(s).offset}, ks.dups[s]...)
		slices.Sort(offs)
		obs := make([]obsKey, len(offs))
		for i, o := range offs {
			obs[i] = obsKey{ks.key, o, v}
		}
		sink.add(Duplicate, Case{
			Key: ptr(ks.key), Value: ptr(v), Offsets: offs, Ops: ev.opsFor(obs...),
			Explanation: fmt.Sprintf("value %d of key %d appears at %d offsets %v", v, ks.key, len(offs), offs),
		})
	}
}
