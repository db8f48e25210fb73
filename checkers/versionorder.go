package checkers

import (
	"cmp"
	"slices"

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
// Kafka offsets are nearly dense (gaps are transaction markers), so an array
// indexed by offset is both the smallest and the fastest representation.
type offsetLog struct {
	entries chunked[logEntry] // slot noSlot where nothing was observed
	over    map[int64]logEntry

	// Filled by seal: dense index of each offset (holes removed).
	dense   []int32
	overIdx map[int64]int32
	byIndex []int64 // dense index -> offset
}

func (l *offsetLog) size() int64 { return int64(l.entries.len()) }

func (l *offsetLog) get(o int64) (logEntry, bool) {
	if o < l.size() {
		if e := l.entries.at(int(o)); e.slot != noSlot {
			return *e, true
		}
	}
	e, ok := l.over[o]
	return e, ok
}

// put records e at an offset where get found nothing.
func (l *offsetLog) put(o int64, e logEntry) {
	if n := l.size(); o >= n && o < 2*n+denseSlack {
		for l.size() <= o {
			l.entries.push(logEntry{slot: noSlot})
		}
	}
	if o < l.size() {
		*l.entries.at(int(o)) = e
		return
	}
	if l.over == nil {
		l.over = map[int64]logEntry{}
	}
	l.over[o] = e
}

// remap repoints entries at the slots their values were merged into.
func (l *offsetLog) remap(m map[int32]int32) {
	if len(m) == 0 {
		return
	}
	for o := 0; o < l.entries.len(); o++ {
		e := l.entries.at(o)
		if to, ok := m[e.slot]; ok {
			e.slot = to
		}
	}
	for o, e := range l.over {
		if to, ok := m[e.slot]; ok {
			l.over[o] = logEntry{e.val, to}
		}
	}
}

// seal numbers the observed offsets densely, in offset order.
func (l *offsetLog) seal() {
	n := l.entries.len()
	l.dense = make([]int32, n)
	count := int32(0)
	for o := 0; o < n; o++ {
		l.dense[o] = -1
		if l.entries.at(o).slot != noSlot {
			l.dense[o] = count
			count++
		}
	}
	l.byIndex = make([]int64, 0, int(count)+len(l.over))
	for o := 0; o < n; o++ {
		if l.dense[o] >= 0 {
			l.byIndex = append(l.byIndex, int64(o))
		}
	}
	if len(l.over) == 0 {
		return
	}
	// Overflow offsets may lie below the dense end if the dense part grew
	// after they were stored; merge them in order.
	for o := range l.over {
		l.byIndex = append(l.byIndex, o)
	}
	slices.Sort(l.byIndex)
	l.overIdx = make(map[int64]int32, len(l.over))
	for i, o := range l.byIndex {
		if o < int64(n) && l.entries.at(int(o)).slot != noSlot {
			l.dense[o] = int32(i)
		} else {
			l.overIdx[o] = int32(i)
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

// slotFlags say what is known of a value; 16 bits still fit slotRec's
// padding, so a slot stays 32 bytes.
type slotFlags uint16

// Slot flags.
const (
	wOK        slotFlags = 1 << iota // written by an ok op
	wInfo                            // written by an info op
	wFail                            // written by a fail op
	readOK                           // returned by a poll of an ok poll/txn op
	committed                        // written by an op known to have taken effect
	multiWrite                       // sent by more than one op
	merged                           // merged into another slot of the same value at seal
	wTxn                             // sent by a txn op (an info txn may have aborted)
	readEarly                        // returned by an ok non-final op before the key's final reads began
	readFinal                        // returned by an ok final read (lostafterread.go)
)

// slotTable holds what is known of each value of one key: 32 bytes a value,
// no pointers, in chunks that are never copied.
//
// Pass 1 appends a slot per first sighting (a new offset, or a send without
// offset) and finds known values through the offset log, so it needs no
// value map; seal then sorts slots by value and merges those of one value.
type slotTable struct {
	recs   chunked[slotRec]
	sorted []valueSlot // after seal: one entry per value, ascending
}

// slotRec is what is known of one value.
type slotRec struct {
	value  int64
	writer int64 // op index of the completion that sent it; -1 unknown
	offset int64 // first offset it was observed at; NoOffset unknown
	node   int32 // dependency-graph node of an ok writer; -1 none
	flags  slotFlags
}

func (t *slotTable) len() int32 { return int32(t.recs.len()) }

// at returns slot s's record.
func (t *slotTable) at(s int32) *slotRec { return t.recs.at(int(s)) }

type valueSlot struct {
	value int64
	slot  int32
	idx   int32 // last dense index of the value, -1 if not in the log; set by seal
}

func (t *slotTable) add(v int64) int32 {
	return int32(t.recs.push(slotRec{value: v, writer: -1, offset: histories.NoOffset, node: -1}))
}

// find returns v's slot and last dense index after seal, by binary search.
func (t *slotTable) find(v int64) (valueSlot, bool) {
	i, ok := slices.BinarySearchFunc(t.sorted, v, func(e valueSlot, v int64) int { return cmp.Compare(e.value, v) })
	if !ok {
		return valueSlot{}, false
	}
	return t.sorted[i], true
}

// live reports whether slot s still stands for its value after merging.
func (t *slotTable) live(s int32) bool { return t.at(s).flags&merged == 0 }

// keyState is everything the checker knows about one key.
type keyState struct {
	key       int64
	log       offsetLog
	slots     slotTable
	conflicts map[int64][]int64 // offset -> values other than the first seen there
	dups      map[int32][]int64 // slot -> offsets besides slots.offset
	dirty     bool              // slots added since the last merge
	// rewrites: canonical slot -> sends of a value both a failed op and
	// another op sent (rewrites.go); nil in most histories.
	rewrites     map[int32]*rewrite
	preferWriter []writerOf // merge scratch
	// passableBefore[i] is how many records at dense indexes below i a
	// reader may pass over (skipped.go); nil when there are none.
	passableBefore []int32
	maybeAborted   bool // a value a failed op sent was seen in the log
	// abortedReused: offsets where a failed op's send was acknowledged
	// though the version order holds another record (skipped.go); nil
	// in most histories.
	abortedReused map[int64]bool
	// bound is the furthest dense index an ok op read (Jepsen: the maximum,
	// over values read by ok ops, of their first index); -1 when none.
	bound int32
	// finalFrom is the index of the ok final assign that first named the
	// key, -1 when final reads never covered it; finalOp the last final op
	// that read it (else finalFrom). See lostafterread.go.
	finalFrom, finalOp int64
}

func newKeyState(k int64) *keyState { return &keyState{key: k, bound: -1, finalFrom: -1, finalOp: -1} }

// observe records that value v sits at offset o and returns v's slot for
// this sighting. A value first seen at a new offset gets a new slot; seal
// merges the slots of one value.
func (ks *keyState) observe(o, v int64) int32 {
	if e, ok := ks.log.get(o); ok {
		if e.val == v {
			return e.slot
		}
		ks.addConflict(o, v)
		s := ks.slots.add(v)
		ks.slots.at(s).offset = o
		return s
	}
	s := ks.slots.add(v)
	ks.slots.at(s).offset = o
	ks.log.put(o, logEntry{v, s})
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

// merge sorts the live slots by value and folds the slots of each value into
// the oldest one; a value whose slots saw different offsets is a duplicate.
// The log is repointed at the surviving slots.
func (ks *keyState) merge() {
	t := &ks.slots
	pairs := make([]valueSlot, 0, t.len())
	for s := int32(0); s < t.len(); s++ {
		if t.live(s) {
			pairs = append(pairs, valueSlot{value: t.at(s).value, slot: s})
		}
	}
	slices.SortFunc(pairs, func(a, b valueSlot) int {
		if c := cmp.Compare(a.value, b.value); c != 0 {
			return c
		}
		return cmp.Compare(a.slot, b.slot)
	})
	var remap map[int32]int32
	out := pairs[:0]
	for i := 0; i < len(pairs); {
		canon := pairs[i].slot
		j := i + 1
		for j < len(pairs) && pairs[j].value == pairs[i].value {
			j++
		}
		if j-i > 1 {
			ks.noteRewrite(pairs[i:j])
		}
		for k := i + 1; k < j; k++ {
			ks.absorb(canon, pairs[k].slot)
			if remap == nil {
				remap = map[int32]int32{}
			}
			remap[pairs[k].slot] = canon
		}
		out = append(out, valueSlot{value: pairs[i].value, slot: canon})
		i = j
	}
	t.sorted = out
	ks.log.remap(remap)
	ks.applyPreferred()
}

// absorb folds slot other into slot canon, which holds the same value.
func (ks *keyState) absorb(canon, other int32) {
	t := &ks.slots
	if w := t.at(other).writer; w >= 0 {
		if t.at(canon).writer >= 0 && t.at(canon).writer != w {
			t.at(canon).flags |= multiWrite
		}
		if w > t.at(canon).writer {
			t.at(canon).writer, t.at(canon).node = w, t.at(other).node
		}
	}
	t.at(canon).flags |= t.at(other).flags
	t.at(other).flags |= merged
	if o := t.at(other).offset; o != histories.NoOffset {
		ks.noteOffset(canon, o)
	}
}

func (ks *keyState) noteOffset(s int32, o int64) {
	first := ks.slots.at(s).offset
	if first == histories.NoOffset {
		ks.slots.at(s).offset = o
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
	o := ks.slots.at(s).offset
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

// seal numbers the log, places each value in it and computes the read bound.
func (ks *keyState) seal() {
	ks.log.seal()
	ks.countPassable()
	for i := range ks.slots.sorted {
		e := &ks.slots.sorted[i]
		_, e.idx = ks.idxRange(e.slot)
	}
	for s := int32(0); s < ks.slots.len(); s++ {
		if f := ks.slots.at(s).flags; f&readOK != 0 && f&merged == 0 {
			first, _ := ks.idxRange(s)
			ks.bound = max(ks.bound, first)
		}
	}
}
