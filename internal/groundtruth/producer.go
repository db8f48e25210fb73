package groundtruth

import "github.com/kafkachaos/kafkachaos/histories"

// invokeProducer starts a plain client's next op: mostly sends, then polls
// (after an assign) and re-assigns.
func (s *sim) invokeProducer(p *proc) error {
	switch c := s.ch.Intn(4); {
	case c <= 1:
		return s.invoke(p, &histories.Op{F: histories.FSend, Mops: s.sendMops()})
	case c == 2 && len(p.assigned()) > 0:
		return s.invoke(p, &histories.Op{F: histories.FPoll, Mops: []histories.Mop{{F: histories.MPoll}}})
	default:
		return s.invokeAssign(p)
	}
}

// sendMops draws 1..MaxBatch sends of fresh values to random keys.
func (s *sim) sendMops() []histories.Mop {
	mops := make([]histories.Mop, 1+s.ch.Intn(s.cfg.MaxBatch))
	for i := range mops {
		mops[i] = s.newSend()
	}
	return mops
}

func (s *sim) newSend() histories.Mop {
	m := histories.Send(histories.Key(s.ch.Intn(s.cfg.Keys)), s.nextValue)
	s.nextValue++
	return m
}

// completeSend ends a plain send: ok (written, offsets known), fail (not
// written) or info (written or not; the process dies).
func (s *sim) completeSend(slot int) error {
	p := s.procs[slot]
	mops := cloneMops(p.pending.Mops)
	switch s.outcome() {
	case 5:
		comp := s.completion(p, histories.Fail)
		comp.Mops, comp.Error = mops, "groundtruth: send certainly not written"
		return s.emit(comp)
	case 6, 7:
		landed := s.ch.Intn(2) == 0
		if landed {
			for _, m := range mops {
				s.logs[m.Key].append(m.Value)
			}
		}
		comp := s.completion(p, histories.Info)
		comp.Mops, comp.Error = mops, "groundtruth: send timed out"
		s.replace(slot)
		return s.emit(comp)
	default:
		for i, m := range mops {
			mops[i].Offset = s.logs[m.Key].append(m.Value)
		}
		comp := s.completion(p, histories.OK)
		comp.Mops = mops
		return s.emit(comp)
	}
}

func cloneMops(ms []histories.Mop) []histories.Mop {
	return append([]histories.Mop(nil), ms...)
}

// invokeAssign assigns a nonempty subset of the keys (choice 0 keeps a key).
func (s *sim) invokeAssign(p *proc) error {
	var ks []histories.Key
	for k := range s.cfg.Keys {
		if s.ch.Intn(2) == 0 {
			ks = append(ks, histories.Key(k))
		}
	}
	if len(ks) == 0 {
		ks = append(ks, histories.Key(s.ch.Intn(s.cfg.Keys)))
	}
	return s.invoke(p, &histories.Op{F: histories.FAssign, Keys: ks})
}

// completeAssign applies an assign: keys that stay keep their position, new
// keys start at offset 0, the rest are dropped.
func (s *sim) completeAssign(p *proc) error {
	comp := s.completion(p, histories.OK)
	keep := make([]bool, s.cfg.Keys)
	for _, k := range comp.Keys {
		keep[k] = true
	}
	for k := range p.pos {
		switch {
		case !keep[k]:
			p.pos[k] = -1
		case p.pos[k] < 0:
			p.pos[k] = 0
		}
	}
	return s.emit(comp)
}

// completePoll ends a plain poll: ok (records from the assigned keys), fail
// (nothing read) or info (unknown; the process dies).
func (s *sim) completePoll(slot int) error {
	p := s.procs[slot]
	switch s.outcome() {
	case 6:
		comp := s.completion(p, histories.Fail)
		comp.Mops, comp.Error = []histories.Mop{{F: histories.MPoll}}, "groundtruth: poll failed"
		return s.emit(comp)
	case 7:
		comp := s.completion(p, histories.Info)
		comp.Mops, comp.Error = []histories.Mop{{F: histories.MPoll}}, "groundtruth: poll timed out"
		s.replace(slot)
		return s.emit(comp)
	default:
		recs := s.readAssigned(p, p.pos, s.readCount)
		comp := s.completion(p, histories.OK)
		comp.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
		return s.emit(comp)
	}
}
