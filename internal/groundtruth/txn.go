package groundtruth

import "github.com/kafkachaos/kafkachaos/histories"

// Outcomes of a transaction.
const (
	txnCommit = iota
	txnAbort
	txnInfoCommitted
	txnInfoAborted
)

// invokeTxnClient starts a transactional client's next op: mostly txns, and
// assigns so that txns can poll.
func (s *sim) invokeTxnClient(p *proc) error {
	if s.ch.Intn(4) == 3 {
		return s.invokeAssign(p)
	}
	canPoll := len(p.assigned()) > 0
	mops := make([]histories.Mop, 1+s.ch.Intn(s.cfg.MaxBatch))
	for i := range mops {
		if canPoll && s.ch.Intn(2) == 1 {
			mops[i] = histories.Mop{F: histories.MPoll}
		} else {
			mops[i] = s.newSend()
		}
	}
	return s.invoke(p, &histories.Op{F: histories.FTxn, Mops: mops})
}

func (s *sim) txnOutcome() int {
	switch s.outcome() {
	case 5:
		return txnAbort
	case 6:
		return txnInfoCommitted
	case 7:
		return txnInfoAborted
	default:
		return txnCommit
	}
}

// completeTxn runs a txn atomically. Its polls read the log as it was before
// its own sends (a txn never sees its own writes); its sends then take
// offsets, visible only when it commits, and a control marker follows them on
// every key written. An aborted txn leaves its positions where they were, as a
// client that seeks back after abort does.
func (s *sim) completeTxn(slot int) error {
	p := s.procs[slot]
	outcome := s.txnOutcome()
	committed := outcome == txnCommit || outcome == txnInfoCommitted
	invoked := p.pending.Mops
	mops := cloneMops(invoked)
	pos := append([]int64(nil), p.pos...)
	for i, m := range mops {
		if m.F == histories.MPoll {
			mops[i].Records = s.readAssigned(p, pos, s.readCount)
		}
	}
	wrote := make([]bool, s.cfg.Keys)
	for i, m := range mops {
		if m.F != histories.MSend {
			continue
		}
		v := m.Value
		if !committed {
			v = invisible
		}
		mops[i].Offset = s.logs[m.Key].append(v)
		wrote[m.Key] = true
	}
	for k, w := range wrote {
		if w {
			s.logs[k].append(invisible) // the commit or abort marker
		}
	}
	switch outcome {
	case txnCommit:
		copy(p.pos, pos)
		comp := s.completion(p, histories.OK)
		comp.Mops = mops
		return s.emit(comp)
	case txnAbort:
		comp := s.completion(p, histories.Fail)
		comp.Mops, comp.Error = mops, "groundtruth: transaction aborted"
		return s.emit(comp)
	default:
		comp := s.completion(p, histories.Info)
		comp.Mops, comp.Error = cloneMops(invoked), "groundtruth: commit timed out"
		s.replace(slot)
		return s.emit(comp)
	}
}
