package checkers

import (
	"sort"

	"github.com/kafkachaos/kafkachaos/histories"
)

// noSlot marks an offset that holds no observed value.
const noSlot int32 = -1

// denseSlack bounds how far past its end the dense part of an offsetLog grows
// in one step; offsets further out (a bogus or very sparse history) go to a
// map, so one absurd offset cannot allocate gigabytes.
const denseSlack = 1 << 16

// logEntry is the first value observed at an offset and its slot.
type logEntry struct {
	val  int64
	slot int32
}

// offsetLog is one key's version order: offset -> first value seen there.
// Kafka offsets are nearly dense (gaps are transaction markers), so a slice
// indexed by offset is both the smallest and the fastest representation.
type offsetLog struct {
	vals  []int64
	slots []int32 // noSlot where nothing was observed
	over  map[int64]logEntry

	// Filled by seal: dense index of each offset (holes removed).
	dense   []int32
	overIdx map[int64]int32
	byIndex []int64 // dense index -> offset
}

func (l *offsetLog) get(o int64) (logEntry, bool) {
	if o < int64(len(l.slots)) && l.slots[o] != noSlot {
		return logEntry{l.vals[o], l.slots[o]}, true
	}
	e, ok := l.over[o]
	return e, ok
}

// put records e at an offset where get found nothing.
func (l *offsetLog) put(o int64, e logEntry) {
	n := int64(len(l.slots))
	if o >= n && o < 2*n+denseSlack {
		for int64(len(l.slots)) <= o {
			l.vals = append(l.vals, 0)
			l.slots = append(l.slots, noSlot)
		}
	}
	if o < int64(len(l.slots)) {
		l.vals[o], l.slots[o] = e.val, e.slot
		return
	}
	if l.over == nil {
		l.over = map[int64]logEntry{}
	}
	l.over[o] = e
}

// seal numbers the observed offsets densely, in offset order.
func (l *offsetLog) seal() {
	overOffs := make([]int64, 0, len(l.over))
	for o := range l.over {
		overOffs = append(overOffs, o)
	}
	sort.Slice(overOffs, func(i, j int) bool { return overOffs[i] < overOffs[j] })
	l.dense = make([]int32, len(l.slots))
	next := int32(0)
	for o, s := range l.slots {
		l.dense[o] = -1
		if s != noSlot {
			l.dense[o] = next
			l.byIndex = append(l.byIndex, int64(o))
			next++
		}
	}
	// Overflow offsets may lie below the dense end only if the dense part grew
	// after they were stored; merge them in order.
	if len(overOffs) > 0 {
		l.overIdx = make(map[int64]int32, len(overOffs))
		all := append(l.byIndex, overOffs...)
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		l.byIndex = all
		for i, o := range all {
			if o < int64(len(l.dense)) && l.slots[o] != noSlot {
				l.dense[o] = int32(i)
			} else {
				l.overIdx[o] = int32(i)
			}
		}
	}
}

// idx is the dense index of offset o, or -1 when nothing was seen there.
func (l *offsetLog) idx(o int64) int32 {
	if o >= 0 && o < int64(len(l.dense)) && l.dense[o] >= 0 {
		return l.dense[o]
	}
	if i, ok := l.overIdx[o]; ok {
		return i
	}
	return -1
}

// valueAt is the first value observed at dense index i.
func (l *offsetLog) valueAt(i int32) (int64, int32) {
	e, _ := l.get(l.byIndex[i])
	return e.val, e.slot
}

// Slot flags.
const (
	wOK        uint8 = 1 << iota // written by an ok op
	wInfo                        // written by an info op
	wFail                        // written by a fail op
	readAny                      // returned by some poll
	readOK                       // returned by a poll of an ok poll/txn op
	committed                    // written by an op known to have taken effect
	multiWrite                   // sent by more than one op
)

// slotTable holds what is known of each value of one key, struct-of-arrays so
// that millions of values cost a few dozen bytes each and no pointers.
type slotTable struct {
	byValue map[int64]int32
	value   []int64
	writer  []int64 // op index of the completion that sent it; -1 unknown
	node    []int32 // dependency-graph node of an ok writer; -1 none
	offset  []int64 // first offset it was observed at; NoOffset unknown
	flags   []uint8
}

func (t *slotTable) lookup(v int64) int32 {
	if s, ok := t.byValue[v]; ok {
		return s
	}
	s := int32(len(t.value))
	if t.byValue == nil {
		t.byValue = map[int64]int32{}
	}
	t.byValue[v] = s
	t.value = append(t.value, v)
	t.writer = append(t.writer, -1)
	t.node = append(t.node, -1)
	t.offset = append(t.offset, histories.NoOffset)
	t.flags = append(t.flags, 0)
	return s
}

// find returns v's slot without creating one.
func (t *slotTable) find(v int64) (int32, bool) {
	s, ok := t.byValue[v]
	return s, ok
}

// keyState is everything the checker knows about one key.
type keyState struct {
	key       int64
	log       offsetLog
	slots     slotTable
	conflicts map[int64][]int64 // offset -> values other than the first seen there
	dups      map[int32][]int64 // slot -> offsets besides slots.offset
	// bound is the furthest dense index an ok op read (Jepsen: the maximum,
	// over values read by ok ops, of their first index); -1 when none.
	bound int32
}

func newKeyState(k int64) *keyState { return &keyState{key: k, bound: -1} }

// observe records that value v sits at offset o and returns v's slot.
func (ks *keyState) observe(o, v int64) int32 {
	if e, ok := ks.log.get(o); ok {
		if e.val == v {
			return e.slot
		}
		s := ks.slots.lookup(v)
		ks.addConflict(o, v)
		ks.noteOffset(s, o)
		return s
	}
	s := ks.slots.lookup(v)
	ks.log.put(o, logEntry{v, s})
	ks.noteOffset(s, o)
	return s
}

func (ks *keyState) addConflict(o, v int64) {
	if ks.conflicts == nil {
		ks.conflicts = map[int64][]int64{}
	}
	for _, x := range ks.conflicts[o] {
		if x == v {
			return
		}
	}
	ks.conflicts[o] = append(ks.conflicts[o], v)
}

func (ks *keyState) noteOffset(s int32, o int64) {
	first := ks.slots.offset[s]
	if first == histories.NoOffset {
		ks.slots.offset[s] = o
		return
	}
	if first == o {
		return
	}
	if ks.dups == nil {
		ks.dups = map[int32][]int64{}
	}
	for _, x := range ks.dups[s] {
		if x == o {
			return
		}
	}
	ks.dups[s] = append(ks.dups[s], o)
}

// idxRange is the first and last dense index of slot s (they differ only for
// a duplicated value); -1, -1 when s never appeared in the log.
func (ks *keyState) idxRange(s int32) (first, last int32) {
	o := ks.slots.offset[s]
	if o == histories.NoOffset {
		return -1, -1
	}
	first = ks.log.idx(o)
	last = first
	for _, o2 := range ks.dups[s] {
		i := ks.log.idx(o2)
		first, last = min(first, i), max(last, i)
	}
	return first, last
}

// seal numbers the log and computes the read bound.
func (ks *keyState) seal() {
	ks.log.seal()
	for s, f := range ks.slots.flags {
		if f&readOK != 0 {
			first, _ := ks.idxRange(int32(s))
			ks.bound = max(ks.bound, first)
		}
	}
}
