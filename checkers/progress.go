package checkers

import (
	"encoding/json"
	"strings"

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
type kindTrack struct {
	seen        bool
	first, last int64   // times of the first and last op of the kind, invoke or completion
	ok          []int64 // completion times of ok ops, in history order
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
	// instant names faults whose stop op is "<f>-done": they act when they
	// start (a crash, a leader shuffle) and the runner's final heal only
	// closes their books, so their windows are zero-length.
	instant map[string]bool
}

// nemesisEvent is what a nemesis op does to the fault windows.
type nemesisEvent int

const (
	evInstant nemesisEvent = iota // acts at once (no health, no start/stop name)
	evStart
	evStop
	evDone // the books of an instantaneous fault closed
)

// nemesisOp is the part of a nemesis op's value liveness reads (see
// nemesis.runner.record); other histories' values may lack it.
type nemesisOp struct {
	Fault  string `json:"fault"`
	Health *struct {
		When string `json:"when"`
	} `json:"health"`
}

// classify reads a nemesis op: the fault's name and whether it starts or
// stops it. The health check's "when" decides when present ("before" a
// fault starts, "after" it stopped); otherwise the op's f does (kafkachaos'
// "<fault>-start"/"-stop"/"-done", Jepsen's "start-<fault>"/"stop-<fault>").
// A value that is not such an object leaves the name to f.
func classify(op *histories.Op) (string, nemesisEvent) {
	var v nemesisOp
	_ = json.Unmarshal(op.Value, &v) // best effort: Jepsen's values differ
	name, ev := nameEvent(op.F)
	if v.Fault != "" {
		name = v.Fault
	}
	if ev == evDone || v.Health == nil {
		return name, ev
	}
	switch v.Health.When {
	case "before":
		return name, evStart
	case "after":
		return name, evStop
	}
	return name, ev
}

func nameEvent(f string) (string, nemesisEvent) {
	for _, s := range []struct {
		affix  string
		suffix bool
		ev     nemesisEvent
	}{{"-done", true, evDone}, {"-start", true, evStart}, {"-stop", true, evStop}, {"start-", false, evStart}, {"stop-", false, evStop}} {
		if s.suffix && strings.HasSuffix(f, s.affix) {
			return strings.TrimSuffix(f, s.affix), s.ev
		}
		if !s.suffix && strings.HasPrefix(f, s.affix) {
			return strings.TrimPrefix(f, s.affix), s.ev
		}
	}
	return f, evInstant
}

func (l *faultLog) visit(op *histories.Op) {
	name, ev := classify(op)
	switch ev {
	case evStart:
		if l.open == nil {
			l.open = map[string][]int{}
		}
		l.open[name] = append(l.open[name], len(l.windows))
		l.windows = append(l.windows, faultWindow{fault: name, start: op.Time, end: op.Time, open: true})
	case evStop, evDone:
		if ev == evDone {
			if l.instant == nil {
				l.instant = map[string]bool{}
			}
			l.instant[name] = true
		}
		// A stop heals the oldest window of its fault; a stop of nothing
		// open (a heal retried) changes nothing.
		if q := l.open[name]; len(q) > 0 {
			w := &l.windows[q[0]]
			w.end, w.open = op.Time, false
			l.open[name] = q[1:]
		}
	case evInstant:
		l.windows = append(l.windows, faultWindow{fault: name, start: op.Time, end: op.Time, instant: true})
	}
}

// seal fixes the windows once the history has ended at end: instantaneous
// faults act at their start, and windows still open last to the end.
func (l *faultLog) seal(end int64) {
	for i := range l.windows {
		w := &l.windows[i]
		switch {
		case l.instant[w.fault]:
			w.end, w.open, w.instant = w.start, false, true
		case w.open:
			w.end = end
		}
	}
}

// keyValue names one value of one key.
type keyValue struct{ key, value int64 }

// ackedSend is an ok send not yet returned by an ok read.
type ackedSend struct{ op, time int64 }

// lagTrack finds the worst realtime lag: it holds the ok sends with an
// offset that no ok op has read yet, so its size is the consumers' backlog,
// not the history's.
type lagTrack struct {
	acked map[keyValue]ackedSend
	worst *RealtimeLag
}

// sent notes an ok send of kv completed by op, unless an ok op already read
// it (a read that completed first has no lag).
func (t *lagTrack) sent(op *histories.Op, kv keyValue, alreadyRead bool) {
	if alreadyRead {
		return
	}
	if t.acked == nil {
		t.acked = map[keyValue]ackedSend{}
	}
	t.acked[kv] = ackedSend{op.Index, op.Time}
}

// read notes that ok op returned kv.
func (t *lagTrack) read(op *histories.Op, kv keyValue) {
	a, ok := t.acked[kv]
	if !ok {
		return
	}
	delete(t.acked, kv)
	if lag := op.Time - a.time; t.worst == nil || lag > t.worst.Ns {
		t.worst = &RealtimeLag{Ns: lag, Key: kv.key, Value: kv.value, SendOp: a.op, ReadOp: op.Index}
	}
}

// progress is pass 1's liveness state.
type progress struct {
	kinds  [len(progressKinds)]kindTrack
	faults faultLog
	lag    lagTrack
	end    int64 // time of the last op
}

// visit records op's time, kind and outcome, or its fault.
func (p *progress) visit(op *histories.Op) {
	p.end = max(p.end, op.Time)
	if !op.IsClient() {
		if op.Type != histories.Invoke {
			p.faults.visit(op)
		}
		return
	}
	k := kindIndex(op.F)
	if k < 0 {
		return
	}
	t := &p.kinds[k]
	if !t.seen {
		t.seen, t.first = true, op.Time
	}
	t.last = max(t.last, op.Time)
	if op.Type == histories.OK {
		t.ok = append(t.ok, op.Time)
	}
}
