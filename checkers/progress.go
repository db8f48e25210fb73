package checkers

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// progressKinds are the op kinds whose progress liveness measures.
var progressKinds = [...]string{histories.FSend, histories.FPoll, histories.FTxn}

func kindIndex(f string) int {
	for i, k := range progressKinds {
		if k == f {
			return i
		}
	}
	return -1
}

// kindTrack is what pass 1 keeps of one op kind: 8 bytes per ok op, the
// only per-op state liveness needs, since the gaps between ok ops can be
// judged against the fault windows only once the last nemesis op is known.
//
// An ok op is progress when it sent or delivered records. One that did
// neither (a poll or a copier's step that returned nothing) waits in idle
// until the end of the history shows whether a record was waiting for the
// workload when it completed: an empty poll of a consumer caught up is
// progress, one while records wait is not.
type kindTrack struct {
	seen        bool
	first, last int64   // times of the first and last workload op of the kind, invoke or completion
	lastStart   int64   // latest invoke of the kind (a completion's own time when the history has none)
	ok          []int64 // completion times of ok ops that made progress, in history order
	idle        []int64 // completion times of ok ops that neither sent nor delivered
}

// faultWindow is one fault in force, from its start op to its stop op.
type faultWindow struct {
	fault      string
	start, end int64
	open       bool // no stop op yet
	instant    bool // an op that acts and heals at once
}

// faultLog turns nemesis ops into fault windows as they stream by.
type faultLog struct {
	windows []faultWindow
	open    map[string][]int // fault -> indexes of its open windows, oldest first
}

// visit reads a nemesis op by histories.FaultOf: a start opens a window of
// its kind, a stop heals the oldest open one (a stop of nothing open, a
// heal retried or the heal after an instantaneous fault, changes nothing),
// an instantaneous fault is a window of no length.
func (l *faultLog) visit(op *histories.Op) {
	name, edge := histories.FaultOf(op)
	switch edge {
	case histories.EdgeStart:
		if l.open == nil {
			l.open = map[string][]int{}
		}
		l.open[name] = append(l.open[name], len(l.windows))
		l.windows = append(l.windows, faultWindow{fault: name, start: op.Time, end: op.Time, open: true})
	case histories.EdgeStop:
		if q := l.open[name]; len(q) > 0 {
			w := &l.windows[q[0]]
			w.end, w.open = op.Time, false
			l.open[name] = q[1:]
		}
	case histories.EdgeInstant:
		l.windows = append(l.windows, faultWindow{fault: name, start: op.Time, end: op.Time, instant: true})
	}
}

// seal fixes the windows once the history has ended at end: windows still
// open last to the end.
func (l *faultLog) seal(end int64) {
	for i := range l.windows {
		if w := &l.windows[i]; w.open {
			w.end = end
		}
	}
}

// progress is pass 1's liveness state.
type progress struct {
	kinds   [len(progressKinds)]kindTrack
	faults  faultLog
	stuck   []NotRecovered // heals after which the cluster stayed unhealthy
	backlog backlog
	end     int64 // time of the last op
}

// visit records op's time, kind and outcome, or its fault. The final reads
// are the harness's, not the workload's: they make no progress and start
// no wait (backlog.read still learns from them what the log holds).
func (p *progress) visit(op *histories.Op, final, moved bool) {
	p.end = max(p.end, op.Time)
	if !op.IsClient() {
		if op.Type != histories.Invoke {
			p.faults.visit(op)
			p.notRecovered(op)
		}
		return
	}
	if final {
		return
	}
	p.backlog.visit(op)
	k := kindIndex(op.F)
	if k < 0 {
		return
	}
	t := &p.kinds[k]
	if !t.seen {
		t.seen, t.first = true, op.Time
	}
	t.last = max(t.last, op.Time)
	t.lastStart = max(t.lastStart, p.backlog.started(op))
	switch {
	case op.Type != histories.OK:
	case moved:
		t.ok = append(t.ok, op.Time)
	default:
		t.idle = append(t.idle, op.Time)
	}
}

// moved reports whether ok op sent a record or delivered one.
func moved(op *histories.Op) bool {
	for i := range op.Mops {
		m := &op.Mops[i]
		switch {
		case m.F == histories.MSend && sendsOf(op):
			return true
		case m.F == histories.MPoll && readsOf(op):
			for _, recs := range m.Records {
				if len(recs) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// seal decides, once the history has ended at end, which idle ops were
// caught up (no record waited for the workload when they completed) and
// counts them as progress; covered reports whether the final reads read a
// key to its end.
func (p *progress) seal(covered func(key int64) bool) {
	p.faults.seal(p.end)
	waits := p.backlog.seal(covered)
	for k := range p.kinds {
		t := &p.kinds[k]
		for _, at := range t.idle {
			if !waiting(waits, at) {
				t.ok = append(t.ok, at)
			}
		}
		t.idle = nil
		slices.Sort(t.ok) // idle ops joined out of order; imported histories need not be in time order
	}
}

// notRecovered notes a heal op after which the cluster did not become
// healthy (histories.NotRecoveredOf).
func (p *progress) notRecovered(op *histories.Op) {
	h, ok := histories.NotRecoveredOf(op)
	if !ok {
		return
	}
	fault, _ := histories.FaultOf(op)
	p.stuck = append(p.stuck, NotRecovered{Index: op.Index, Fault: fault, AtNs: op.Time, Waited: h.Waited, Unhealthy: h.Unhealthy})
}
