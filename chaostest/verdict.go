package chaostest

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Verdict is what a run found: the guarantee the output showed, and the
// records that prove it, by name.
type Verdict struct {
	// Held: the observed guarantee satisfies Want, and every anomaly found
	// has a known effect on delivery. It judges the input the code
	// consumed and the cluster kept: Unconsumed and InputLost are neither
	// loss nor proof, and Check fails for them.
	Held     bool
	Want     Guarantee
	Observed Guarantee
	// Lost are input records acknowledged to the harness that the output
	// does not hold and that the code's group committed past: the code's
	// loss. Duplicated are input records the output holds more than once.
	// Each names at most the cases the checkers keep for the report (200);
	// results.json has the exact counts.
	Lost       []Record
	Duplicated []Record
	// Unconsumed are acknowledged input records the output does not hold
	// and the code's group had not committed past when the code was
	// stopped: not consumed in time (Options.Drain), not lost.
	Unconsumed []Record
	// InputLost are acknowledged input records the input topic no longer
	// held at the end: the cluster lost them before the code could read
	// them, which is no finding about the code.
	InputLost []Record
	// Other names the other anomalies the checkers found (ordering,
	// inconsistent offsets), with their counts: they do not change the
	// guarantee.
	Other []string
	// Notes say what else happened to the code: it returned on its own, it
	// had not caught up when the run ended.
	Notes []string
	// Hangs are starts of the code that did not return within StopGrace of
	// their ctx's cancellation. Check fails a test for them.
	Hangs []string
	// NotLive says why the run was not live: the cluster stayed unhealthy
	// after a heal (its fault undone), or a kind of op never came back.
	// Check fails a test for it: what the code did after is unjudged.
	NotLive []string
	// Acked is how many input records were acknowledged; Delivered how many
	// distinct ones the output holds.
	Acked, Delivered int
	// Dir is the run directory (history.jsonl, results.json, index.html);
	// it is removed when Check would pass the run unless Kept.
	Dir  string
	Kept bool
}

// Record is one input record the verdict names.
type Record struct {
	// Partition is the input partition and the output partition it
	// should have gone to.
	Partition int64
	Value     int64
	// InputOffset is where it landed in the input; -1 when the send's
	// offset is unknown.
	InputOffset int64
	// OutputOffsets are where the output holds it (two or more for a
	// duplicate, none for a loss).
	OutputOffsets []int64
	// Anomaly is the checkers' name for the finding, Explanation their
	// sentence.
	Anomaly     checkers.Anomaly
	Explanation string
	// Ops are the history's op indexes that prove it.
	Ops []int64
}

func (r Record) String() string {
	s := fmt.Sprintf("partition %d value %d (input offset %d)", r.Partition, r.Value, r.InputOffset)
	if len(r.OutputOffsets) > 0 {
		s += fmt.Sprintf(" at output offsets %v", r.OutputOffsets)
	}
	return s + fmt.Sprintf(" [%s, ops %v]", r.Anomaly, r.Ops)
}

// failed reports whether Check fails a test for v: the guarantee broke,
// the code hung or had not consumed its input, the cluster lost input or
// was not live.
func (v Verdict) failed() bool {
	return !v.Held || len(v.Hangs)+len(v.Unconsumed)+len(v.InputLost)+len(v.NotLive) > 0
}

// String is the verdict with its evidence, as a failing test prints it.
func (v Verdict) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "want %v, observed %v (held: %v); %d input records acknowledged, %d delivered",
		v.Want, v.Observed, v.Held, v.Acked, v.Delivered)
	list := func(what string, rs []Record) {
		for _, r := range rs[:min(len(rs), shownRecords)] {
			fmt.Fprintf(&b, "\n  %s: %v", what, r)
		}
		if len(rs) > shownRecords {
			fmt.Fprintf(&b, "\n  ... %d more %s records named in Verdict and results.json", len(rs)-shownRecords, what)
		}
	}
	list("lost", v.Lost)
	list("duplicated", v.Duplicated)
	if n := len(v.Unconsumed); n > 0 {
		fmt.Fprintf(&b, "\n  %d input records not consumed in time: the code's group had not committed past them when the code was stopped (Options.Drain bounds the wait); they are not judged", n)
	}
	list("not consumed in time", v.Unconsumed)
	if n := len(v.InputLost); n > 0 {
		fmt.Fprintf(&b, "\n  %d acknowledged input records lost from the input topic: the cluster lost them, not the code, and the code could not be judged on them", n)
	}
	list("lost from the input", v.InputLost)
	for _, s := range v.NotLive {
		fmt.Fprintf(&b, "\n  not live: %s", s)
	}
	for _, s := range slices.Concat(v.Other, v.Notes, v.Hangs) {
		fmt.Fprintf(&b, "\n  %s", s)
	}
	if v.Kept {
		fmt.Fprintf(&b, "\n  history and report: %s", v.Dir)
	}
	return b.String()
}

// shownRecords is how many lost and duplicated records String names.
const shownRecords = 5

// judge has the history judged as every run's is (runner.Outcome.Check,
// against the guarantee the test states), writes results.json and fills v.
func (v *Verdict) judge(dir string, r *run, herr error) error {
	out := runner.Outcome{Dir: dir, Expected: expectation(v.Want)}
	if err := out.Check(dir); err != nil {
		return fmt.Errorf("chaostest: %w", err)
	}
	src, err := histories.Open(filepath.Join(dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		return err
	}
	delivered, err := scanOutput(src, r.s.Keys.Count)
	if err != nil {
		return err
	}
	res, obs := out.Result, out.Observed
	v.Acked, v.Delivered = r.input.acked(), len(delivered)
	v.Held, v.Observed = out.Held, obs.EndToEnd
	v.Lost = r.records(res, obs.Loss)
	v.Duplicated = r.records(res, obs.Duplication)
	if r.end != nil {
		out.Result.Warnings = append(out.Result.Warnings, v.sortMissing(r, &out, delivered)...)
	}
	for _, a := range slices.Concat(obs.OrderOnly, obs.Unclassified) {
		v.Other = append(v.Other, fmt.Sprintf("%s: %d cases", a, res.Counts[a]))
	}
	v.Notes, v.Hangs = r.sup.report()
	v.NotLive = res.Liveness.NotLiveReasons()
	if r.drained != "" {
		v.Notes = append(v.Notes, r.drained)
	}
	out.Stats = runner.Stats{Stats: res.Stats}
	for _, t := range r.faults {
		st := t.stat()
		out.Stats.Faults = append(out.Stats.Faults, st)
		out.Stats.FaultsFired += st.Fired
	}
	return runner.WriteResults(dir, &out, herr)
}

// sortMissing splits the acknowledged values the output lacks into the
// code's loss, input not consumed in time and input the cluster lost
// (inputEnd.fates). When none is the code's, the guarantee is judged
// without the checkers' loss, all of which is then about those values
// (only the final reads of the output read the pipelines, so every loss
// they find is an acknowledged value they did not return). It returns
// what results.json must say of them, whose verdict is the history's.
func (v *Verdict) sortMissing(r *run, out *runner.Outcome, delivered map[int64]bool) []string {
	var missing []int64
	for val := range r.input.ackedValues() {
		if !delivered[val] {
			missing = append(missing, val)
		}
	}
	lost, unconsumed, inputLost := r.end.fates(missing, r.s.Keys.Count)
	v.Unconsumed, v.InputLost = r.named(out.Result, unconsumed), r.named(out.Result, inputLost)
	v.Lost = slices.DeleteFunc(v.Lost, func(rec Record) bool { _, ok := lost[rec.Value]; return !ok })
	var warnings []string
	if n := len(unconsumed); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%d acknowledged input records were not consumed by the code in time (its group had not committed past them when it was stopped): their loss here is not the code's", n))
	}
	if n := len(inputLost); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%d acknowledged input records are missing from the input topic: the cluster lost them, not the code", n))
	}
	if len(lost) == 0 && len(missing) > 0 && out.Result.Counts[checkers.LostAfterRead] == 0 {
		obs := model.Observe(withoutLoss(out.Result))
		v.Held, v.Observed = out.Expected.HeldBy(obs), obs.EndToEnd
	}
	return warnings
}

// withoutLoss is res without its lost-write and unseen findings.
func withoutLoss(res checkers.Result) checkers.Result {
	loss := []checkers.Anomaly{checkers.LostWrite, checkers.Unseen}
	res.Anomalies, res.Counts = maps.Clone(res.Anomalies), maps.Clone(res.Counts)
	res.AnomalyTypes = slices.DeleteFunc(slices.Clone(res.AnomalyTypes), func(a checkers.Anomaly) bool { return slices.Contains(loss, a) })
	for _, a := range loss {
		delete(res.Anomalies, a)
		delete(res.Counts, a)
	}
	return res
}

// expectation is the test's statement as results.json records an
// expectation. In the history the whole pipeline (the harness's input
// producer, the code under test, the output log) is the producer hop, so
// that is where its loss and duplicates show and where the statement
// goes; the consumer hop is the harness's own final reads, which neither
// lose nor duplicate.
func expectation(want Guarantee) model.Expectation {
	return model.Expectation{EndToEnd: want,
		Producer: model.Hop{Guarantee: want, Reasons: []string{"the code under test between the input and the output, as the test states"}},
		Consumer: model.Hop{Guarantee: model.ExactlyOnce, Reasons: []string{"the harness's final reads of the output, from its beginning to its end"}}}
}

// records names the cases of the anomalies as, in key and value order.
func (r *run) records(res checkers.Result, as []checkers.Anomaly) []Record {
	var out []Record
	for _, a := range as {
		for _, c := range res.Anomalies[a] {
			rec := Record{Anomaly: a, Explanation: c.Explanation, Ops: c.Ops, OutputOffsets: c.Offsets, InputOffset: -1}
			if c.Key != nil {
				rec.Partition = *c.Key
			}
			if c.Value != nil {
				rec.Value = *c.Value
				if o, ok := r.input.offset(rec.Value); ok {
					rec.InputOffset = o
				}
			}
			out = append(out, rec)
		}
	}
	sortRecords(out)
	return out
}

// sortRecords sorts rs in key and value order.
func sortRecords(rs []Record) {
	slices.SortFunc(rs, func(a, b Record) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Value - b.Value)
	})
}

// scanOutput is the distinct values the output holds; it fails on
// the first output record on a partition other than its input's: the
// contract of Env, without which the history's pipelines (input partition
// k to output partition k) would call it lost from one and unexplained in
// the other.
func scanOutput(src histories.Source, parts int) (map[int64]bool, error) {
	seen := map[int64]bool{}
	err := src.Scan(func(op *histories.Op) error {
		for _, m := range op.Mops {
			for k, recs := range m.Records {
				for _, rec := range recs {
					if want := (rec.Value - 1) % int64(parts); rec.Value < 1 || want != k {
						return fmt.Errorf("chaostest: output partition %d holds value %d at offset %d, which the harness wrote to input partition %d: "+
							"the code must write each record to the output partition numbered as its input's, with its value unchanged (see Env)",
							k, rec.Value, rec.Offset, want)
					}
					seen[rec.Value] = true
				}
			}
		}
		return nil
	})
	return seen, err
}
