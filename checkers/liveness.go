package checkers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Liveness holds findings about progress, not safety: they sit beside the
// anomalies and never change Valid or the observed guarantee (a hung call
// or a stalled cluster proves nothing about what the log holds). Times are
// the history's, in nanoseconds since the run started.
type Liveness struct {
	// Live is false when a kind of op never recovered after the last heal
	// (Kinds[i].NeverRecovered) or the cluster stayed unhealthy after a
	// heal (NotRecovered): a cluster that stays down is a finding, not a
	// pass.
	Live bool `json:"live"`
	// ClientHangs are client calls that outlived their timeout by a grace,
	// in history order.
	ClientHangs []ClientHang `json:"client-hangs,omitempty"`
	// Kinds is availability per op kind (send, poll, txn) that occurs.
	Kinds []KindLiveness `json:"kinds,omitempty"`
	// Faults are the fault windows that hold (instantaneous faults left
	// out) with the ok ops of each kind completed inside each.
	Faults []FaultProgress `json:"faults,omitempty"`
	// Stalls are fault windows of at least StallMinNs in which a kind that
	// had ok ops before the window had none inside it (Redpanda's harness
	// calls it HANG).
	Stalls []Stall `json:"stalls,omitempty"`
	// LastHealNs is when the last fault ended (its stop op; an
	// instantaneous fault's only op); nil when there were no faults.
	LastHealNs *int64 `json:"last-heal-ns,omitempty"`
	// Unhealed is set when a fault window was still open at the end of the
	// history; recovery is then not measured.
	Unhealed bool `json:"unhealed,omitempty"`
	// NotRecovered are the heals after which the cluster stayed unhealthy
	// for as long as the harness waited, although the fault itself was
	// undone: the cluster did not recover by itself, and Live is false.
	NotRecovered []NotRecovered `json:"not-recovered,omitempty"`
	// WorstRealtimeLag (Jepsen's :worst-realtime-lag) is the longest time
	// from an ok send's completion to the completion of the first ok
	// workload op that read its value; sends without a reported offset are
	// not timed, and the final reads are the harness's, so a run without a
	// workload reader has none.
	WorstRealtimeLag *RealtimeLag `json:"worst-realtime-lag,omitempty"`
}

// RecoveryWindowNs is how long after the last heal the workload must keep
// trying a kind, without success, for the kind to count as never
// recovered: clients may need seconds to learn a new leader or rejoin a
// group, and a run ending in that time says nothing of recovery.
const RecoveryWindowNs int64 = 10e9

// StallMinNs is the shortest fault window judged for stalls: in a shorter
// one, no ok op may be mere chance.
const StallMinNs int64 = 1e9

// KindLiveness is the availability of one kind of op. Only the workload's
// progress counts: an ok send, an ok poll or txn that sent or delivered
// records, or one that returned nothing while no record waited for the
// workload (a consumer caught up); never an empty poll while records wait,
// nor the harness's final reads. "Ok op" below means such progress. A
// window of unavailability is a time with no ok op of the kind while the
// kind was in use: from its first op (invoke or completion) to its first ok
// op, between two ok ops, and from its last ok op to its last op.
//
// A record waits from the invoke of the op that sent it to the first ok
// workload read that returned it, if it is in the log: an ok op sent it, a
// read returned it, or the final reads did not cover its key (an info
// send's record may be there). Only the keys the workload assigned,
// subscribed to or read count, and all of them at once: an empty poll of
// one consumer while another's keys lag is no progress.
type KindLiveness struct {
	Kind string `json:"kind"`
	OK   int64  `json:"ok"`
	// MaxUnavailable is the longest window; DuringFaults the longest that
	// overlapped a fault window; AfterHeal the longest part of a window
	// after the last heal (nil when not measured or none).
	MaxUnavailable *Window `json:"max-unavailable,omitempty"`
	DuringFaults   *Window `json:"max-unavailable-during-faults,omitempty"`
	AfterHeal      *Window `json:"max-unavailable-after-heal,omitempty"`
	// RecoveryNs is the time from the last heal to the first ok op of the
	// kind completed after it; nil when no op of the kind ran after it.
	RecoveryNs *int64 `json:"recovery-ns,omitempty"`
	// NeverRecovered: the workload kept invoking ops of the kind for at
	// least RecoveryWindowNs after the last heal and none succeeded before
	// the history ended. An op invoked before the heal that merely ended
	// after it (a send flushed at the close) is no attempt on the healed
	// cluster, and a run that stopped trying sooner (it ended) has its
	// recovery unmeasured, not failed.
	NeverRecovered bool `json:"never-recovered,omitempty"`
}

// Window is a span of time; Faulted says whether a fault window overlapped
// it.
type Window struct {
	Ns      int64 `json:"ns"`
	FromNs  int64 `json:"from-ns"`
	ToNs    int64 `json:"to-ns"`
	Faulted bool  `json:"overlaps-fault"`
}

// FaultProgress is one fault window and the ok ops of each kind that
// completed inside it.
type FaultProgress struct {
	Fault  string           `json:"fault"`
	FromNs int64            `json:"from-ns"`
	ToNs   int64            `json:"to-ns"`
	Open   bool             `json:"open,omitempty"` // never stopped: ToNs is the history's end
	OK     map[string]int64 `json:"ok"`
}

// NotRecovered is a heal after which the cluster stayed unhealthy: its
// nemesis op, when it was made, how long the harness waited, and what was
// still not whole then (a partition short of its replicas, a broker not
// registered, ...).
type NotRecovered struct {
	Index     int64  `json:"index"`
	Fault     string `json:"fault"`
	AtNs      int64  `json:"at-ns"`
	Waited    string `json:"waited,omitempty"`
	Unhealthy string `json:"unhealthy"`
}

// NotLiveReasons says, a sentence each, why l is not live: each heal after
// which the cluster stayed unhealthy, then the kinds that never recovered.
// None when l is nil or live.
func (l *Liveness) NotLiveReasons() []string {
	if l == nil || l.Live {
		return nil
	}
	var why []string
	for _, n := range l.NotRecovered {
		why = append(why, fmt.Sprintf("the cluster stayed unhealthy %s after the heal of %s at %.2f s (op %d): %s",
			n.Waited, n.Fault, float64(n.AtNs)/1e9, n.Index, n.Unhealthy))
	}
	var kinds []string
	for _, k := range l.Kinds {
		if k.NeverRecovered {
			kinds = append(kinds, k.Kind)
		}
	}
	if len(kinds) > 0 {
		why = append(why, "the cluster never recovered after the last heal: "+
			fmt.Sprintf("%s ops were invoked for %v or more after it and none succeeded before the history ended",
				strings.Join(kinds, ", "), time.Duration(RecoveryWindowNs)))
	}
	if len(why) == 0 { // results written before the reasons were kept
		why = append(why, "the liveness section says the run was not live")
	}
	return why
}

// Stall is a kind that made no progress through a fault window.
type Stall struct {
	Fault  string `json:"fault"`
	FromNs int64  `json:"from-ns"`
	ToNs   int64  `json:"to-ns"`
	Kind   string `json:"kind"`
	// OKBefore is how many ok ops of the kind completed before the window.
	OKBefore int64 `json:"ok-before"`
}

// RealtimeLag is the time from a send's ok completion to the first ok
// workload op that returned its value.
type RealtimeLag struct {
	Ns     int64 `json:"ns"`
	Key    int64 `json:"key"`
	Value  int64 `json:"value"`
	SendOp int64 `json:"send-op"`
	ReadOp int64 `json:"read-op"`
}

// ClientHang is one client-hang op of the history: which process, which
// call, its timeout and how long it had blocked.
type ClientHang struct {
	Index   int64 `json:"index"`
	Process int64 `json:"process"`
	histories.ClientHang
}

// hang records a client-hang op; a malformed one is an error naming the
// op and field (readers have checked it already, ops built in memory have
// not).
func (c *collector) hang(op *histories.Op) error {
	h, err := op.ClientHang()
	if err != nil {
		return fmt.Errorf("op index %d: %w", op.Index, err)
	}
	c.hangs = append(c.hangs, ClientHang{Index: op.Index, Process: op.Process, ClientHang: h})
	return nil
}

// liveness is nil when there is nothing to report (no client op, fault or
// hang), so that results.json leaves it out.
func (c *collector) liveness() *Liveness {
	p := c.prog
	l := &Liveness{Live: true, ClientHangs: c.hangs, WorstRealtimeLag: p.backlog.worst}
	heal, healed := p.lastHeal(l)
	faults := p.faultUnion()
	for k := range p.kinds {
		t := &p.kinds[k]
		if !t.seen {
			continue
		}
		kl := t.judge(progressKinds[k], faults, heal, healed)
		l.Live = l.Live && !kl.NeverRecovered
		l.Kinds = append(l.Kinds, kl)
	}
	p.progressInFaults(l)
	l.NotRecovered = p.stuck
	l.Live = l.Live && len(l.NotRecovered) == 0
	if len(l.Kinds) == 0 && len(l.ClientHangs) == 0 && len(p.faults.windows) == 0 {
		return nil
	}
	return l
}

// lastHeal is when the last fault ended; healed is false when there were
// no faults or one never ended (then recovery is not measured).
func (p *progress) lastHeal(l *Liveness) (int64, bool) {
	if len(p.faults.windows) == 0 {
		return 0, false
	}
	var heal int64
	for _, w := range p.faults.windows {
		if w.open {
			l.Unhealed = true
			return 0, false
		}
		heal = max(heal, w.end)
	}
	l.LastHealNs = &heal
	return heal, true
}

// span is a closed interval of time.
type span struct{ from, to int64 }

// faultUnion is the times some fault was in force, as disjoint spans in
// time order.
func (p *progress) faultUnion() []span {
	var out []span
	for _, w := range p.faults.windows {
		out = append(out, span{w.start, w.end})
	}
	return union(out)
}

// union is the time spans cover, as disjoint spans in time order; it
// reuses spans' array.
func union(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s.from <= merged[n-1].to {
			merged[n-1].to = max(merged[n-1].to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// judge measures one kind's windows of unavailability against the fault
// spans, in one sweep (the windows and the spans are both in time order).
func (t *kindTrack) judge(kind string, faults []span, heal int64, healed bool) KindLiveness {
	var longest, during, after Window // the first window of a length wins; Ns 0 is none
	fi := 0
	prev := t.first
	gap := func(to int64) {
		for fi < len(faults) && faults[fi].to < prev {
			fi++
		}
		w := Window{Ns: to - prev, FromNs: prev, ToNs: to, Faulted: fi < len(faults) && faults[fi].from <= to}
		if w.Ns > longest.Ns {
			longest = w
		}
		if w.Faulted && w.Ns > during.Ns {
			during = w
		}
		if from := max(prev, heal); healed && to-from > after.Ns {
			after = Window{Ns: to - from, FromNs: from, ToNs: to}
		}
		prev = to
	}
	for _, at := range t.ok {
		gap(at)
	}
	gap(max(t.last, prev))
	kl := KindLiveness{Kind: kind, OK: int64(len(t.ok)), MaxUnavailable: some(longest), DuringFaults: some(during), AfterHeal: some(after)}
	if healed {
		t.recovery(&kl, heal)
	}
	return kl
}

// some is w, or nil for the empty window (none found).
func some(w Window) *Window {
	if w.Ns <= 0 {
		return nil
	}
	return &w
}

// recovery is the time from the heal to the kind's first ok op after it;
// ops of the kind invoked for RecoveryWindowNs after the heal without one
// never recovered.
func (t *kindTrack) recovery(kl *KindLiveness, heal int64) {
	i, _ := slices.BinarySearch(t.ok, heal)
	switch {
	case i < len(t.ok):
		r := t.ok[i] - heal
		kl.RecoveryNs = &r
	case t.lastStart-heal >= RecoveryWindowNs:
		kl.NeverRecovered = true
	}
}

// progressInFaults counts each kind's ok ops in every fault window that
// holds and flags the windows of at least StallMinNs in which a kind that
// had made progress made none.
func (p *progress) progressInFaults(l *Liveness) {
	for _, w := range p.faults.windows {
		if w.instant {
			continue
		}
		fp := FaultProgress{Fault: w.fault, FromNs: w.start, ToNs: w.end, Open: w.open, OK: map[string]int64{}}
		for k := range p.kinds {
			t := &p.kinds[k]
			if !t.seen {
				continue
			}
			before, _ := slices.BinarySearch(t.ok, w.start)
			upTo, _ := slices.BinarySearch(t.ok, w.end+1)
			in := int64(upTo - before)
			fp.OK[progressKinds[k]] = in
			if in == 0 && before > 0 && w.end-w.start >= StallMinNs {
				l.Stalls = append(l.Stalls, Stall{Fault: w.fault, FromNs: w.start, ToNs: w.end, Kind: progressKinds[k], OKBefore: int64(before)})
			}
		}
		l.Faults = append(l.Faults, fp)
	}
}
