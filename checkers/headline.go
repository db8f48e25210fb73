package checkers

import (
	"strconv"
	"strings"
	"time"
)

// Headline is a run's liveness in the few figures a table row has room
// for: the versions table, the matrix and `kafkachaos summary` show these,
// the report page all of Liveness. Its zero value is a live run of which
// nothing was measured.
type Headline struct {
	// NotLive is !Liveness.Live: a kind of op never came back after the
	// last heal.
	NotLive bool
	// SendOutage is the sends' longest window without an ok send; 0 when
	// none was measured.
	SendOutage time.Duration
	// Recovery is from the last heal to the first ok send after it, when
	// Recovered (not measured: no fault, one never healed, no send after
	// it, or none ok).
	Recovery  time.Duration
	Recovered bool
	// Stalls counts the fault windows in which a kind of op stopped.
	Stalls int
	// WorstLag is the worst realtime lag from an ack to the first
	// workload read of its value; 0 when none was measured (no workload
	// reader, or no send timed).
	WorstLag time.Duration
}

// Headline is l's headline; a nil Liveness (nothing to report: no client
// op, fault or hang) is live with nothing measured.
func (l *Liveness) Headline() Headline {
	var h Headline
	if l == nil {
		return h
	}
	h.NotLive, h.Stalls = !l.Live, len(l.Stalls)
	if l.WorstRealtimeLag != nil {
		h.WorstLag = time.Duration(l.WorstRealtimeLag.Ns)
	}
	for _, k := range l.Kinds {
		if k.Kind != "send" {
			continue
		}
		if k.MaxUnavailable != nil {
			h.SendOutage = time.Duration(k.MaxUnavailable.Ns)
		}
		if k.RecoveryNs != nil {
			h.Recovery, h.Recovered = time.Duration(*k.RecoveryNs), true
		}
	}
	return h
}

// HeadlineColumns names the figures Cells writes, in its order.
func HeadlineColumns() []string { return []string{"send outage", "recovery", "stalls", "worst lag"} }

// Cells writes h's figures for a table, in HeadlineColumns' order: times
// to the millisecond, "-" where nothing was measured, and a recovery of
// "never" when the run is not live and the sends did not come back.
func (h Headline) Cells() []string {
	rec := "-"
	switch {
	case h.Recovered:
		rec = millis(h.Recovery)
	case h.NotLive:
		rec = "never"
	}
	return []string{orDash(h.SendOutage), rec, strconv.Itoa(h.Stalls), orDash(h.WorstLag)}
}

// String is h in a line: "live, send outage 9.41s, recovery 431ms, stalls
// 1, worst lag 7.53s", NOT LIVE first when the run was not.
func (h Headline) String() string {
	parts := []string{"live"}
	if h.NotLive {
		parts[0] = "NOT LIVE"
	}
	cells := h.Cells()
	for i, c := range HeadlineColumns() {
		parts = append(parts, c+" "+cells[i])
	}
	return strings.Join(parts, ", ")
}

func millis(d time.Duration) string { return d.Round(time.Millisecond).String() }

func orDash(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return millis(d)
}
