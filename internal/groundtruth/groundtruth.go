package groundtruth

import (
	"encoding/json"
	"maps"

	"github.com/kafkachaos/kafkachaos/histories"
)

// role is what a client process does.
type role int

const (
	producer  role = iota // sends, assign, polls
	txnClient             // txns mixing sends and polls, assign
	member                // consumer group member: subscribe, poll, commit
)

// opGap is the simulated time between two consecutive ops, in nanoseconds.
const opGap = 1000

// proc is one live client process.
type proc struct {
	id      int64
	role    role
	pending *histories.Op // the invocation in flight, nil when idle
	// pos is, per key, the next offset to read, or -1 when the key is not
	// assigned (for a group member: not owned).
	pos        []int64
	subscribed bool
	// dirty: a group member returned records it has not committed yet; its
	// keys must not change owner, or the group would re-deliver them.
	dirty           bool
	revoked, gained []histories.Key // group: key changes not yet reported
}

// sim is the state of one simulation: the cluster and its clients.
type sim struct {
	cfg       Config
	ch        Chooser
	out       func(*histories.Op) error
	index     int64
	logs      []plog
	procs     []*proc // slots of live processes; a crashed one is replaced in place
	nextProc  int64
	nextValue int64
	committed []int64 // group: committed offset per key
	owner     []*proc // group: member owning each key, nil when none
}

func newSim(cfg Config, ch Chooser, out func(*histories.Op) error) (*sim, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &sim{cfg: cfg, ch: ch, out: out, logs: make([]plog, cfg.Keys),
		committed: make([]int64, cfg.Keys), owner: make([]*proc, cfg.Keys)}
	for range cfg.Producers {
		s.procs = append(s.procs, s.newProc(producer))
	}
	for range cfg.TxnClients {
		s.procs = append(s.procs, s.newProc(txnClient))
	}
	for range cfg.GroupMembers {
		s.procs = append(s.procs, s.newProc(member))
	}
	return s, nil
}

func (s *sim) newProc(r role) *proc {
	p := &proc{id: s.nextProc, role: r, pos: make([]int64, s.cfg.Keys)}
	s.nextProc++
	for k := range p.pos {
		p.pos[k] = -1
	}
	return p
}

// emit numbers op densely, stamps its time and hands it on.
func (s *sim) emit(op *histories.Op) error {
	op.Index = s.index
	op.Time = (s.index + 1) * opGap
	s.index++
	return s.out(op)
}

// invoke emits the invocation of op by p and leaves it in flight.
func (s *sim) invoke(p *proc, op *histories.Op) error {
	op.Process, op.Type = p.id, histories.Invoke
	p.pending = op
	return s.emit(op)
}

// completion starts the completion of p's op in flight.
func (s *sim) completion(p *proc, t histories.Type) *histories.Op {
	inv := p.pending
	p.pending = nil
	return &histories.Op{Process: p.id, Type: t, F: inv.F, Keys: inv.Keys, Group: inv.Group, Extra: copyExtra(inv.Extra)}
}

// copyExtra gives a completion its invocation's extra fields (the final
// reads' marker) in a map of its own.
func copyExtra(x map[string]json.RawMessage) map[string]json.RawMessage {
	if x == nil {
		return nil
	}
	return maps.Clone(x)
}

// step schedules one process: it completes its op in flight, crashes, or
// invokes its next op.
func (s *sim) step() error {
	slot := s.ch.Intn(len(s.procs))
	p := s.procs[slot]
	if p.pending != nil {
		return s.complete(slot)
	}
	if n := s.cfg.CrashOneIn; n > 0 && s.ch.Intn(n) == n-1 && !p.dirty {
		return s.crash(slot)
	}
	switch p.role {
	case producer:
		return s.invokeProducer(p)
	case txnClient:
		return s.invokeTxnClient(p)
	default:
		return s.invokeMember(p)
	}
}

func (s *sim) complete(slot int) error {
	p := s.procs[slot]
	switch p.pending.F {
	case histories.FSend:
		return s.completeSend(slot)
	case histories.FPoll:
		if p.role == member {
			return s.completeMemberPoll(slot)
		}
		return s.completePoll(slot)
	case histories.FTxn:
		return s.completeTxn(slot)
	case histories.FAssign:
		return s.completeAssign(p)
	case histories.FSubscribe:
		return s.completeSubscribe(p)
	default:
		return s.completeCommit(p, false)
	}
}

// crash emits the crash of the idle process in slot and replaces it.
func (s *sim) crash(slot int) error {
	p := s.procs[slot]
	if err := s.emit(&histories.Op{Process: p.id, Type: histories.Info, F: histories.FCrash}); err != nil {
		return err
	}
	s.replace(slot)
	return nil
}

// replace retires the process in slot (after a crash or an info completion:
// its id never returns) and puts a fresh process of the same role there.
func (s *sim) replace(slot int) {
	p := s.procs[slot]
	s.procs[slot] = s.newProc(p.role)
	if p.role == member && p.subscribed {
		s.leave(p)
	}
}

// assigned lists the keys p may read, in key order.
func (p *proc) assigned() []histories.Key {
	var ks []histories.Key
	for k, pos := range p.pos {
		if pos >= 0 {
			ks = append(ks, histories.Key(k))
		}
	}
	return ks
}

// outcome draws an op's outcome, one of 8 with 0 (ok) the plainest; under
// Config.TroubleOneIn most ops complete ok without drawing.
func (s *sim) outcome() int {
	if n := s.cfg.TroubleOneIn; n > 1 && s.ch.Intn(n) != n-1 {
		return 0
	}
	return s.ch.Intn(8)
}

// readCount chooses how many records to read from one key; choice 0 reads
// the most, so shrinking leans toward complete reads.
func (s *sim) readCount() int {
	return s.cfg.MaxBatch - s.ch.Intn(s.cfg.MaxBatch+1)
}

// readAssigned reads from every key p has, advancing pos (p's positions or a
// scratch copy); nil when nothing was there.
func (s *sim) readAssigned(p *proc, pos []int64, count func() int) map[histories.Key][]histories.Record {
	var recs map[histories.Key][]histories.Record
	for k, at := range pos {
		if at < 0 || p.pos[k] < 0 {
			continue
		}
		rs, next := s.logs[k].read(at, count())
		pos[k] = next
		if len(rs) > 0 {
			if recs == nil {
				recs = make(map[histories.Key][]histories.Record)
			}
			recs[histories.Key(k)] = rs
		}
	}
	return recs
}
