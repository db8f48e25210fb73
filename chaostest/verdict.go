package chaostest

import (
	"fmt"
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
	// has a known effect on delivery.
	Held     bool
	Want     Guarantee
	Observed Guarantee
	// Lost are input records acknowledged to the harness that the output
	// does not hold; Duplicated are input records the output holds more
	// than once. Each anomaly names at most the cases the checkers keep
	// for the report (200); results.json has the exact counts.
	Lost       []Record
	Duplicated []Record
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
	// Acked is how many input records were acknowledged; Delivered how many
	// distinct ones the output holds.
	Acked, Delivered int
	// Dir is the run directory (history.jsonl, results.json, index.html);
	// it is removed when the guarantee held unless Kept.
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
	v.Held, v.Observed = out.Held, obs.EndToEnd
	v.Acked, v.Delivered = r.input.acked(), delivered
	v.Lost = r.records(res, obs.Loss)
	v.Duplicated = r.records(res, obs.Duplication)
	for _, a := range slices.Concat(obs.OrderOnly, obs.Unclassified) {
		v.Other = append(v.Other, fmt.Sprintf("%s: %d cases", a, res.Counts[a]))
	}
	v.Notes, v.Hangs = r.sup.report()
	if r.drained != "" {
		v.Notes = append(v.Notes, r.drained)
	}
	out.Stats = runner.Stats{Stats: res.Stats}
	return runner.WriteResults(dir, &out, herr)
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
	slices.SortFunc(out, func(a, b Record) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(a.Value - b.Value)
	})
	return out
}

// scanOutput counts the distinct values the output holds, and fails on
// the first output record on a partition other than its input's: the
// contract of Env, without which the history's pipelines (input partition
// k to output partition k) would call it lost from one and unexplained in
// the other.
func scanOutput(src histories.Source, parts int) (int, error) {
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
	return len(seen), err
}
