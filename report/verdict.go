package report

import (
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// verdict is what the page says of the run as a whole. It is read from
// results.json (harness-error, guarantee-held, valid), never recomputed:
// the run has one verdict, and the page shows it.
type verdict struct {
	Class string // CSS class: ok (the only green one), bad, untrusted, unk
	Word  string // VALID, INVALID, NOT HELD, NOT TRUSTED, NOT CHECKED
	Why   string // one sentence, for every word but VALID
}

// readVerdict orders the fields by how much of the rest they undermine: a
// harness error means the history itself may be wrong, so nothing else
// counts; then the run's own verdict (guarantee-held), then the checker's.
func readVerdict(res runResults, checked bool) verdict {
	switch {
	case !checked:
		return verdict{"unk", "NOT CHECKED", "no results.json in this run directory"}
	case res.HarnessError != "":
		return verdict{"untrusted", "NOT TRUSTED", "the harness failed during the run, so its history and verdict cannot be trusted"}
	case res.Held != nil && !*res.Held:
		return verdict{"bad", "NOT HELD", notHeld(res.Breaks)}
	case !res.Valid:
		return verdict{"bad", "INVALID", "the checker found anomalies"}
	}
	return verdict{Class: "ok", Word: "VALID"}
}

// Green reports whether the page may show the run as passed.
func (v verdict) Green() bool { return v.Class == "ok" }

// notHeld says why a run did not hold, with the hops that broke when
// results.json names them.
func notHeld(breaks []string) string {
	if len(breaks) == 0 {
		return "the expected guarantee did not hold"
	}
	return "the expected guarantee did not hold: " + strings.Join(breaks, "; ")
}

// liveVerdict is NOT LIVE when results.json's liveness says a kind of op
// never recovered after the last heal, nil otherwise. It stands beside the
// verdict and never changes it: a cluster that stopped serving lost
// nothing, but a run that never recovered is a finding, not a pass.
func liveVerdict(l *checkers.Liveness) *verdict {
	if l == nil || l.Live {
		return nil
	}
	var kinds []string
	for _, k := range l.Kinds {
		if k.NeverRecovered {
			kinds = append(kinds, k.Kind)
		}
	}
	return &verdict{"bad", "NOT LIVE", "the cluster never recovered after the last heal: " +
		strings.Join(kinds, ", ") + " ops ran after it and none succeeded before the history ended"}
}
