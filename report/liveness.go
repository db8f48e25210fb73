package report

import (
	"fmt"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// livenessView is the liveness section: what results.json's liveness says,
// with its times written for a person. Nothing is recomputed.
type livenessView struct {
	ClientHangs []checkers.ClientHang
	NotLive     *Verdict // nil when the run is live
	Kinds       []kindRow
	Faults      []faultRow
	Stalls      int
	Heal        string // when the last fault ended, or why recovery was not measured
	Lag         *checkers.RealtimeLag
	LagTime     string
}

// kindRow is one op kind's availability, its times formatted.
type kindRow struct {
	Kind                    string
	OK                      int64
	Max, During, After, Rec string
	Never                   bool
}

// faultRow is one fault window and the ok ops of each kind inside it;
// Stalled names the kinds that made none although they had before.
type faultRow struct {
	Fault, From, To string
	Open            bool
	OK              string
	Stalled         string
}

func newLivenessView(l *checkers.Liveness) *livenessView {
	if l == nil {
		return nil
	}
	v := &livenessView{ClientHangs: l.ClientHangs, NotLive: liveVerdict(l), Stalls: len(l.Stalls), Lag: l.WorstRealtimeLag}
	for _, k := range l.Kinds {
		row := kindRow{Kind: k.Kind, OK: k.OK, Max: spanText(k.MaxUnavailable), During: spanText(k.DuringFaults),
			After: spanText(k.AfterHeal), Never: k.NeverRecovered}
		switch {
		case k.NeverRecovered:
			row.Rec = "never"
		case k.RecoveryNs != nil:
			row.Rec = seconds(*k.RecoveryNs)
		}
		v.Kinds = append(v.Kinds, row)
	}
	for _, f := range l.Faults {
		v.Faults = append(v.Faults, faultRow{Fault: f.Fault, From: at(f.FromNs), To: at(f.ToNs), Open: f.Open,
			OK: okCounts(l.Kinds, f.OK), Stalled: stalled(l.Stalls, f)})
	}
	switch {
	case l.Unhealed:
		v.Heal = "a fault was still in force when the history ended, so recovery was not measured"
	case l.LastHealNs != nil:
		v.Heal = "the last fault ended at " + at(*l.LastHealNs)
	}
	if l.WorstRealtimeLag != nil {
		v.LagTime = seconds(l.WorstRealtimeLag.Ns)
	}
	return v
}

// seconds writes a duration in nanoseconds: milliseconds below a second.
func seconds(ns int64) string {
	if ns < 1e9 {
		return fmt.Sprintf("%d ms", ns/1e6)
	}
	return fmt.Sprintf("%.2f s", float64(ns)/1e9)
}

// at writes a time of the run, in seconds from its start.
func at(ns int64) string { return fmt.Sprintf("%.2f s", float64(ns)/1e9) }

func spanText(w *checkers.Window) string {
	if w == nil {
		return ""
	}
	return seconds(w.Ns) + " (" + at(w.FromNs) + " – " + at(w.ToNs) + ")"
}

// okCounts lists a window's ok ops in the order of the kinds.
func okCounts(kinds []checkers.KindLiveness, ok map[string]int64) string {
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k.Kind, ok[k.Kind]))
	}
	return strings.Join(parts, " · ")
}

func stalled(stalls []checkers.Stall, f checkers.FaultProgress) string {
	var kinds []string
	for _, s := range stalls {
		if s.Fault == f.Fault && s.FromNs == f.FromNs && s.ToNs == f.ToNs {
			kinds = append(kinds, s.Kind)
		}
	}
	return strings.Join(kinds, ", ")
}

// livenessOps are the ops the liveness section links to, for the evidence
// list: the client hangs and the worst lag's send and read.
func livenessOps(l *checkers.Liveness) []int64 {
	if l == nil {
		return nil
	}
	var out []int64
	for _, h := range l.ClientHangs {
		out = append(out, h.Index)
	}
	if w := l.WorstRealtimeLag; w != nil {
		out = append(out, w.SendOp, w.ReadOp)
	}
	return out
}
