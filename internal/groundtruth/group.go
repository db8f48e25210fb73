package groundtruth

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// invokeMember starts a group member's next op: subscribe first, then a
// commit whenever it holds uncommitted records, else a poll.
func (s *sim) invokeMember(p *proc) error {
	switch {
	case !p.subscribed:
		ks := make([]histories.Key, s.cfg.Keys)
		for k := range ks {
			ks[k] = histories.Key(k)
		}
		return s.invoke(p, &histories.Op{F: histories.FSubscribe, Keys: ks, Group: Group})
	case p.dirty:
		offs := make(map[histories.Key]int64)
		for _, k := range p.assigned() {
			offs[k] = p.pos[k]
		}
		return s.invoke(p, &histories.Op{F: histories.FCommit, Group: Group,
			Mops: []histories.Mop{{F: histories.MCommit, Offsets: offs}}})
	default:
		return s.invoke(p, &histories.Op{F: histories.FPoll, Group: Group, Mops: []histories.Mop{{F: histories.MPoll}}})
	}
}

func (s *sim) completeSubscribe(p *proc) error {
	comp := s.completion(p, histories.OK)
	p.subscribed = true
	if err := s.emit(comp); err != nil {
		return err
	}
	s.rebalance(p)
	return nil
}

// completeMemberPoll ends a member's poll, reporting the key changes since
// its last poll. Records returned make the member dirty until it commits.
func (s *sim) completeMemberPoll(slot int) error {
	p := s.procs[slot]
	var rb *histories.Rebalance
	if len(p.revoked)+len(p.gained) > 0 {
		rb = &histories.Rebalance{Revoked: p.revoked, Assigned: p.gained}
		p.revoked, p.gained = nil, nil
	}
	var comp *histories.Op
	switch s.outcome() {
	case 6:
		comp = s.completion(p, histories.Fail)
		comp.Mops, comp.Error = []histories.Mop{{F: histories.MPoll}}, "groundtruth: poll failed"
	case 7:
		comp = s.completion(p, histories.Info)
		comp.Mops, comp.Error = []histories.Mop{{F: histories.MPoll}}, "groundtruth: poll timed out"
		s.replace(slot)
	default:
		recs := s.readAssigned(p, p.pos, s.readCount)
		p.dirty = len(recs) > 0
		comp = s.completion(p, histories.OK)
		comp.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
	}
	comp.Rebalance = rb
	return s.emit(comp)
}

// completeCommit ends a commit: ok records the offsets as the group's; fail
// leaves the member dirty, so it commits again before its keys can move.
// force makes it succeed (used when draining at the end).
func (s *sim) completeCommit(p *proc, force bool) error {
	invoked := p.pending.Mops
	offs := invoked[0].Offsets
	if !force && s.ch.Intn(4) == 3 {
		comp := s.completion(p, histories.Fail)
		comp.Mops, comp.Error = cloneMops(invoked), "groundtruth: commit failed"
		return s.emit(comp)
	}
	comp := s.completion(p, histories.OK)
	comp.Mops = []histories.Mop{{F: histories.MCommit, Offsets: offs}}
	for k, o := range offs {
		s.committed[k] = o
	}
	p.dirty = false
	return s.emit(comp)
}

// leave releases a departed member's keys and hands them to the others.
func (s *sim) leave(p *proc) {
	for k, o := range s.owner {
		if o == p {
			s.owner[k] = nil
		}
	}
	s.rebalance(nil)
}

// rebalance gives every ownerless key to a live member; a joiner may also
// take keys from members that are clean (hold nothing uncommitted), so no
// record is ever delivered twice.
func (s *sim) rebalance(joiner *proc) {
	var members []*proc
	for _, p := range s.procs {
		if p.role == member && p.subscribed {
			members = append(members, p)
		}
	}
	if len(members) == 0 {
		return
	}
	for k, o := range s.owner {
		switch {
		case o == nil:
			s.give(k, members[s.ch.Intn(len(members))])
		case joiner != nil && o != joiner && !o.dirty && s.ch.Intn(2) == 1:
			o.pos[k] = -1
			o.revoked = append(o.revoked, histories.Key(k))
			o.gained = slices.DeleteFunc(o.gained, func(g histories.Key) bool { return g == histories.Key(k) })
			s.give(k, joiner)
		}
	}
}

// give makes m the owner of key k, starting at the group's committed offset.
func (s *sim) give(k int, m *proc) {
	s.owner[k] = m
	m.pos[k] = s.committed[k]
	m.gained = append(m.gained, histories.Key(k))
}
