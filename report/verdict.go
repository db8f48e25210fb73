package report

import (
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/model"
)

// Verdict is what a run's page, the runs index and `kafkachaos summary` say
// of the run as a whole. It is read from results.json (harness-error,
// guarantee-held, valid), never recomputed: the run has one verdict, and
// Facts.Verdict is the one place that says how it is shown.
type Verdict struct {
	// Class is the colour: ok (green), allowed (amber: held, with anomalies
	// the expected guarantee allows), bad and untrusted (red), unk (grey).
	Class string
	// Word is VALID (nothing found), HELD (anomalies the expected
	// guarantee allows), NOT HELD, NOT TRUSTED or NOT CHECKED; INVALID is
	// a history checked with no expected guarantee, whose anomalies nothing
	// allows.
	Word string
	Why  string // one sentence, for every verdict but a clean one
}

// Facts are the fields of results.json a verdict is read from.
type Facts struct {
	Checked      bool // the run has a results.json
	HarnessError string
	// Held is nil when results.json has no expected guarantee (a history
	// checked on its own).
	Held   *bool
	Valid  bool
	Breaks []string
}

// Verdict orders the facts by how much of the rest they undermine: a
// harness error means the history itself may be wrong, so nothing else
// counts; then the run's own verdict (guarantee-held); the checker's
// anomalies only colour a run that held, and decide alone only when there
// was no expected guarantee to hold.
func (f Facts) Verdict() Verdict {
	switch {
	case !f.Checked:
		return Verdict{"unk", "NOT CHECKED", "no results.json in this run directory"}
	case f.HarnessError != "":
		return Verdict{"untrusted", "NOT TRUSTED", "the harness failed during the run, so its history and verdict cannot be trusted"}
	case f.Held != nil && !*f.Held:
		return Verdict{"bad", "NOT HELD", notHeld(f.Breaks)}
	case f.Valid:
		return Verdict{Class: "ok", Word: "VALID"}
	case f.Held == nil:
		return Verdict{"bad", "INVALID", "the checker found anomalies, and no expected guarantee was judged (a history checked without its scenario), so none is allowed"}
	}
	return Verdict{"allowed", "HELD", "the expected guarantee held, with anomalies it allows"}
}

// Green reports whether the run is shown as passed with nothing found.
func (v Verdict) Green() bool { return v.Class == "ok" }

// Passed reports whether the run kept what it was expected to keep: green,
// or amber (held, with the anomalies its guarantee allows).
func (v Verdict) Passed() bool { return v.Class == "ok" || v.Class == "allowed" }

// Severity orders verdicts from best to worst: clean, held with allowed
// anomalies, failed (NOT HELD, INVALID), not trusted, not checked.
func (v Verdict) Severity() int {
	switch v.Class {
	case "ok":
		return 0
	case "allowed":
		return 1
	case "bad":
		return 2
	case "untrusted":
		return 3
	}
	return 4
}

// Mark is the verdict's sign in a page title: ✔ passed clean, ⚠ held with
// anomalies, ✘ otherwise.
func (v Verdict) Mark() string {
	switch v.Class {
	case "ok":
		return "✔"
	case "allowed":
		return "⚠"
	}
	return "✘"
}

// ReadVerdict is the verdict of the run directory dir as its page shows it,
// read from its results.json (NOT CHECKED when it has none).
func ReadVerdict(dir string) (Verdict, error) {
	res, checked, err := loadResults(dir)
	if err != nil {
		return Verdict{}, err
	}
	return res.facts(checked).Verdict(), nil
}

// facts are res's verdict fields; checked is false when there is no
// results.json (or it could not be read).
func (res runResults) facts(checked bool) Facts {
	return Facts{Checked: checked, HarnessError: res.HarnessError, Held: res.Held, Valid: res.Valid, Breaks: res.Breaks}
}

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
func liveVerdict(l *checkers.Liveness) *Verdict {
	why := l.NotLiveReasons()
	if len(why) == 0 {
		return nil
	}
	return &Verdict{"bad", "NOT LIVE", strings.Join(why, "; ")}
}

// allowance is one hop whose anomalies a held run's expected guarantee
// allows, with the model's reasons for what that hop may do.
type allowance struct {
	Hop                string
	Expected, Observed model.Guarantee
	Reasons            []string
}

// allowances names, for an amber verdict, each hop that showed loss or
// duplicates, as results.json's observed and expected say them. The run
// held, so its expectation allowed them; which hop showed what is the
// model's reading, only shown here.
func allowances(res runResults) []allowance {
	var out []allowance
	for _, h := range []struct {
		name string
		exp  *model.Hop
		obs  *model.Guarantee
	}{{"producer", res.Expectation.Producer, res.Observation.Producer}, {"consumer", res.Expectation.Consumer, res.Observation.Consumer}} {
		if h.exp != nil && h.obs != nil && *h.obs != model.ExactlyOnce {
			out = append(out, allowance{Hop: h.name, Expected: h.exp.Guarantee, Observed: *h.obs, Reasons: h.exp.Reasons})
		}
	}
	return out
}
