package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// sendPos is where a producer's last ok send to a key landed.
type sendPos struct {
	idx    int32
	offset int64
	value  int64
	op     int64
}

// sendOrder finds nonmonotonic-send (a producer's later ok send landing
// before its earlier one) and int-send-skip / int-nonmonotonic-send (two sends
// of one op to one key that are not adjacent, or out of order, in the log).
type sendOrder struct {
	sink  *caseSink
	procs map[int64]map[int64]sendPos
	prev  []keySend // per-op scratch
}

type keySend struct {
	key int64
	pos sendPos
}

func newSendOrder(sink *caseSink) *sendOrder {
	return &sendOrder{sink: sink, procs: map[int64]map[int64]sendPos{}}
}

func (s *sendOrder) visit(v *opView) {
	switch v.op.F {
	case histories.FCrash:
		delete(s.procs, v.op.Process)
		return
	case histories.FAssign, histories.FSubscribe:
		s.reassign(v.op)
		return
	}
	if len(v.sends) == 0 {
		return
	}
	s.internal(v)
	switch v.op.Type {
	case histories.OK:
		s.external(v, true)
	case histories.Info:
		s.external(v, false)
	}
}

// reassign keeps only the send positions of keys an ok or info assign or
// subscribe still names, as Jepsen's nonmonotonic-send-cases does (its
// kafka_test asserts no anomaly across a subscribe or an info assign of
// other keys). A producer's order does not depend on its consumer's
// assignment, so this can miss a reordering across a reassign; it is done so
// that a history is judged as Jepsen judges it (this project's producers
// never assign). A failed assign changed nothing.
func (s *sendOrder) reassign(op *histories.Op) {
	if op.Type == histories.Fail {
		return
	}
	for k := range s.procs[op.Process] {
		if !containsKey(op.Keys, k) {
			delete(s.procs[op.Process], k)
		}
	}
}

func (s *sendOrder) internal(v *opView) {
	s.prev = s.prev[:0]
	for _, w := range v.sends {
		k := w.ks.key
		cur := sendPos{w.idx, w.offset, w.value, v.op.Index}
		i := s.find(k)
		if i < 0 {
			s.prev = append(s.prev, keySend{k, cur})
			continue
		}
		last := s.prev[i].pos
		s.prev[i].pos = cur
		d := delta(last.idx, w.idx)
		switch {
		case d > 1:
			s.sink.add(IntSendSkip, Case{
				Key: ptr(k), Value: ptr(w.value), Offsets: []int64{last.offset, w.offset},
				Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
				Explanation: fmt.Sprintf("one op sent %d then %d to key %d, but %d other records lie between them in the log", last.value, w.value, k, d-1),
			})
		case d < 1:
			s.sink.add(IntNonmonotonicSend, Case{
				Key: ptr(k), Value: ptr(w.value), Offsets: []int64{last.offset, w.offset},
				Ops: []int64{v.op.Index}, Process: ptr(v.op.Process),
				Explanation: fmt.Sprintf("one op sent %d then %d to key %d, but %d does not come after %d in the log", last.value, w.value, k, w.value, last.value),
			})
		}
	}
}

func (s *sendOrder) find(k int64) int {
	for i := range s.prev {
		if s.prev[i].key == k {
			return i
		}
	}
	return -1
}

// external compares the first send to each key in this op with the last
// send of the producer's previous ok op to that key. An info op's sends are
// compared when the version order places them (a read saw them): they were
// invoked after the earlier send was acknowledged, so they cannot land before
// it. They do not move the position (move is false): a timed-out send may
// still be retried into the log after later sends, which Kafka allows.
func (s *sendOrder) external(v *opView, move bool) {
	last := s.procs[v.op.Process]
	if last == nil {
		last = map[int64]sendPos{}
		s.procs[v.op.Process] = last
	}
	seen := 0
	for _, w := range v.sends {
		k := w.ks.key
		if seen >= len(s.prev) || s.prev[seen].key != k {
			continue // not the op's first send to k
		}
		seen++
		p, ok := last[k]
		if !ok || delta(p.idx, w.idx) >= 1 {
			continue
		}
		s.sink.add(NonmonotonicSend, Case{
			Key: ptr(k), Value: ptr(w.value), Offsets: []int64{p.offset, w.logOffset()},
			Ops: []int64{p.op, v.op.Index}, Process: ptr(v.op.Process),
			Explanation: fmt.Sprintf("process %d sent %d to key %d (op %s) after its acknowledged send of %d, yet %d lies before %d in the log", v.op.Process, w.value, k, v.op.Type, p.value, w.value, p.value),
		})
	}
	if !move {
		return
	}
	for _, ks := range s.prev {
		last[ks.key] = ks.pos
	}
}
