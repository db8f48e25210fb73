package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// pollPos is where a consumer last read a key: the last record of its last
// ok poll of that key.
type pollPos struct {
	idx    int32
	offset int64
	op     int64
}

type procPolls struct {
	subscribed bool
	last       map[int64]pollPos
}

// pollOrder finds poll-skip and nonmonotonic-poll (between consecutive polls
// of one consumer) and their int- forms (inside one op).
type pollOrder struct {
	sink  *caseSink
	opts  Options
	procs map[int64]*procPolls
	prev  []keyPos // per-op scratch: previous read of each key
}

type keyPos struct {
	key int64
	pos pollPos
}

func newPollOrder(sink *caseSink, opts Options) *pollOrder {
	return &pollOrder{sink: sink, opts: opts, procs: map[int64]*procPolls{}}
}

// delta is how many version-order steps separate two reads; 1 when either
// position is unknown, which Jepsen also assumes.
func delta(i1, i2 int32) int32 {
	if i1 < 0 || i2 < 0 {
		return 1
	}
	return i2 - i1
}

func (p *pollOrder) proc(id int64) *procPolls {
	pp, ok := p.procs[id]
	if !ok {
		pp = &procPolls{last: map[int64]pollPos{}}
		p.procs[id] = pp
	}
	return pp
}

func (p *pollOrder) visit(v *opView) {
	op := v.op
	switch {
	case op.F == histories.FAssign || op.F == histories.FSubscribe:
		p.reassign(op)
	case op.F == histories.FCrash:
		// The process id never returns, so its positions can go.
		delete(p.procs, op.Process)
	case readsOf(op):
		p.internal(v)
		p.external(v)
	}
}

// reassign keeps only the positions of keys the consumer still holds, as
// Kafka keeps the fetch position of a partition that stays assigned. A
// failed assign changed nothing.
func (p *pollOrder) reassign(op *histories.Op) {
	if op.Type == histories.Fail {
		return
	}
	pp := p.proc(op.Process)
	pp.subscribed = op.F == histories.FSubscribe
	for k := range pp.last {
		if !containsKey(op.Keys, k) {
			delete(pp.last, k)
		}
	}
}

func containsKey(ks []int64, k int64) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// internal checks consecutive reads of one key inside one op.
func (p *pollOrder) internal(v *opView) {
	p.prev = p.prev[:0]
	for _, r := range v.reads {
		k := r.ks.key
		cur := pollPos{r.idx, r.offset, v.op.Index}
		i := p.find(k)
		if i < 0 {
			p.prev = append(p.prev, keyPos{k, cur})
			continue
		}
		last := p.prev[i].pos
		p.prev[i].pos = cur
		if v.isRebalanced(k) {
			continue
		}
		d := delta(last.idx, r.idx)
		switch {
		case d > 1:
			n := r.ks.skipped(last.idx, r.idx)
			if n == 0 {
				continue
			}
			p.sink.add(IntPollSkip, Case{
				Key: ptr(k), Value: ptr(r.value), Offsets: []int64{last.offset, r.offset},
				Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
				Explanation: fmt.Sprintf("one poll read key %d at offset %d then at offset %d, skipping %d records of the log", k, last.offset, r.offset, n),
			})
		case d < 1:
			p.sink.add(IntNonmonotonicPoll, Case{
				Key: ptr(k), Value: ptr(r.value), Offsets: []int64{last.offset, r.offset},
				Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
				Explanation: fmt.Sprintf("one poll read key %d at offset %d then at offset %d, not after it in the log", k, last.offset, r.offset),
			})
		}
	}
}

func (p *pollOrder) find(k int64) int {
	for i := range p.prev {
		if p.prev[i].key == k {
			return i
		}
	}
	return -1
}

// external compares each key's first read in this op with where the same
// consumer's last ok poll left that key. Any completion is compared (a poll
// that returned records read them whatever its outcome); only ok polls move
// the position. Needs internal to have filled p.prev with each key's last read.
func (p *pollOrder) external(v *opView) {
	op := v.op
	pp := p.proc(op.Process)
	exempt := p.opts.SubscribeAllowsPollSkip && pp.subscribed
	seen := 0
	for _, r := range v.reads {
		k := r.ks.key
		// p.prev lists keys in first-read order, so a key's first read is
		// the one where it is the next unseen entry.
		if seen >= len(p.prev) || p.prev[seen].key != k {
			continue
		}
		seen++
		last, ok := pp.last[k]
		if !ok || exempt || v.isRebalanced(k) {
			continue
		}
		p.compare(op, r.ks, last, r)
	}
	for _, k := range v.rebalanced {
		delete(pp.last, k)
	}
	if op.Type == histories.OK {
		for _, kp := range p.prev {
			pp.last[kp.key] = kp.pos
		}
	}
}

func (p *pollOrder) compare(op *histories.Op, ks *keyState, last pollPos, r readRef) {
	k := ks.key
	d := delta(last.idx, r.idx)
	switch {
	case d > 1:
		n := ks.skipped(last.idx, r.idx)
		if n == 0 {
			return
		}
		p.sink.add(PollSkip, Case{
			Key: ptr(k), Value: ptr(r.value), Offsets: []int64{last.offset, r.offset},
			Ops: []int64{last.op, op.Index}, Process: ptr(op.Process), Group: op.Group,
			Explanation: fmt.Sprintf("process %d last read key %d at offset %d, then its next poll began at offset %d, skipping %d records of the log", op.Process, k, last.offset, r.offset, n),
		})
	case d < 1:
		p.sink.add(NonmonotonicPoll, Case{
			Key: ptr(k), Value: ptr(r.value), Offsets: []int64{last.offset, r.offset},
			Ops: []int64{last.op, op.Index}, Process: ptr(op.Process), Group: op.Group,
			Explanation: fmt.Sprintf("process %d last read key %d at offset %d, then its next poll began at offset %d, not after it", op.Process, k, last.offset, r.offset),
		})
	}
}
