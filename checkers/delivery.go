package checkers

import (
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// groupKey is what one consumer group did with one key.
type groupKey struct {
	ks *keyState
	// first[i] is 1 + the index of the first ok op of the group that returned
	// the record at dense index i; 0 when none did.
	first []int64
	// reused is first for records read at an offset the log settled on
	// another value for (inconsistent-offsets: the log lost the offset and
	// wrote it again); rare, so a map.
	reused    map[slotKey]int64
	committed int64 // highest offset the group committed ok; -1 none
	commitOp  int64
}

// delivery finds duplicate-delivery and lost-delivery per consumer group. A
// record is processed by the group when an ok op of a group member returned
// it; polls that completed info or fail fetched records that may never have
// been processed, so they count for neither anomaly. A record is its offset
// and value: after a truncation the log writes other records at the same
// offsets, and a group that reads them has processed nothing twice.
type delivery struct {
	sink   *caseSink
	groups map[string]map[int64]*groupKey
}

func newDelivery(sink *caseSink) *delivery {
	return &delivery{sink: sink, groups: map[string]map[int64]*groupKey{}}
}

func (d *delivery) key(group string, ks *keyState) *groupKey {
	g := d.groups[group]
	if g == nil {
		g = map[int64]*groupKey{}
		d.groups[group] = g
	}
	gk := g[ks.key]
	if gk == nil {
		gk = &groupKey{ks: ks, first: make([]int64, len(ks.log.byIndex)), committed: -1}
		g[ks.key] = gk
	}
	return gk
}

func (d *delivery) visit(v *opView) {
	op := v.op
	if op.Group == "" || op.Type != histories.OK {
		return
	}
	for _, r := range v.reads {
		d.deliver(op, r)
	}
	// Commits count in any ok op of a member: a consumer that commits
	// before processing records the commit as a mop of its poll op, ahead
	// of the poll mop (a process has one op open at a time).
	for i := range op.Mops {
		if op.Mops[i].F != histories.MCommit {
			continue
		}
		for k, o := range op.Mops[i].Offsets {
			if ks := v.keys[k]; ks != nil {
				gk := d.key(op.Group, ks)
				if o > gk.committed {
					gk.committed, gk.commitOp = o, op.Index
				}
			}
		}
	}
}

func (d *delivery) deliver(op *histories.Op, r readRef) {
	if r.idx < 0 {
		return
	}
	gk := d.key(op.Group, r.ks)
	prev := gk.firstOp(r)
	switch {
	case prev < 0:
		gk.setFirst(r, op.Index)
	case prev != op.Index:
		d.sink.add(DuplicateDelivery, Case{
			Key: ptr(r.ks.key), Value: ptr(r.value), Offsets: []int64{r.offset},
			Ops: []int64{prev, op.Index}, Process: ptr(op.Process), Group: op.Group,
			Explanation: fmt.Sprintf("group %q processed offset %d of key %d (value %d) in op %d and again in op %d", op.Group, r.offset, r.ks.key, r.value, prev, op.Index),
		})
	}
}

// settled reports whether r read the value the log settled on at its
// offset; otherwise r read a record of a reused offset.
func settled(r readRef) bool {
	v, _ := r.ks.log.valueAt(r.idx)
	return v == r.value
}

// firstOp is the first ok op of the group that processed r's record, -1 none.
func (gk *groupKey) firstOp(r readRef) int64 {
	if settled(r) {
		return gk.first[r.idx] - 1
	}
	return gk.reused[slotKey{r.ks.key, r.slot}] - 1
}

func (gk *groupKey) setFirst(r readRef, op int64) {
	if settled(r) {
		gk.first[r.idx] = op + 1
		return
	}
	if gk.reused == nil {
		gk.reused = map[slotKey]int64{}
	}
	gk.reused[slotKey{r.ks.key, r.slot}] = op + 1
}

// finish reports, for each group and key, the records below the group's
// committed offset that no member processed. Only records that certainly
// belong to the log count: their writer took effect, or an ok op read them.
func (d *delivery) finish(col *collector) {
	groups := make([]string, 0, len(d.groups))
	for g := range d.groups {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		for _, ks := range col.keyList {
			if gk := d.groups[g][ks.key]; gk != nil {
				d.lost(g, gk)
			}
		}
	}
}

func (d *delivery) lost(group string, gk *groupKey) {
	ks := gk.ks
	for i, o := range ks.log.byIndex {
		if o >= gk.committed {
			return
		}
		if gk.first[i] != 0 {
			continue
		}
		v, s := ks.log.valueAt(int32(i))
		if ks.slots.at(s).flags&(committed|readOK) == 0 || ks.passable(int32(i)) {
			continue
		}
		ops := []int64{gk.commitOp}
		if w := ks.slots.at(s).writer; w >= 0 {
			ops = append(ops, w)
		}
		d.sink.add(LostDelivery, Case{
			Key: ptr(ks.key), Value: ptr(v), Offsets: []int64{o, gk.committed}, Ops: ops, Group: group,
			Explanation: fmt.Sprintf("group %q committed key %d up to offset %d in op %d, but no member processed the record at offset %d (value %d)", group, ks.key, gk.committed, gk.commitOp, o, v),
		})
	}
}
