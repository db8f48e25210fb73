package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/report"
)

// Recheck judges a run directory again from its files alone: the expected
// guarantee from scenario.json, the verdict from history.jsonl. It rewrites
// results.json, keeping the run's own stats and harness error (which only
// the run could measure), and refreshes index.html. This is what
// `kafkachaos check DIR` does, so a run judged by an older checker, or a
// history whose run was killed before judging, can be judged now.
func Recheck(dir string) (Outcome, error) {
	out := Outcome{Dir: dir, Kept: true}
	s, err := generators.Load(dir)
	if err != nil {
		return out, err
	}
	exp, err := Expected(s)
	if err != nil {
		return out, fmt.Errorf("%s: %w", filepath.Join(dir, generators.FileName), err)
	}
	out.Scenario, out.Expected = s, exp
	prev, err := previousResults(dir)
	if err != nil {
		return out, err
	}
	if err := out.Check(dir); err != nil {
		return out, err
	}
	out.Stats = prev.Stats
	out.Stats.Stats = out.Result.Stats
	var herr error
	if prev.HarnessError != "" {
		herr = errors.New(prev.HarnessError)
	}
	if err := WriteResults(dir, &out, herr); err != nil {
		return out, err
	}
	if err := report.Write(dir, report.Options{}); err != nil {
		return out, fmt.Errorf("report: %w", err)
	}
	return out, nil
}

// previousResults reads the run's results.json, if it has one.
func previousResults(dir string) (Results, error) {
	var r Results
	path := filepath.Join(dir, report.ResultsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
