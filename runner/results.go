package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
)

// Results is results.json: the checker's Result, the expected and observed
// guarantees with the reasons for each hop, the verdict and the run's stats.
type Results struct {
	checkers.Result
	Expected string `json:"expected-guarantee"`
	Observed string `json:"observed-guarantee"`
	// Held is the run's verdict (Outcome.Held).
	Held bool `json:"guarantee-held"`
	// Live is false when a kind of op never recovered after the last heal
	// (liveness.kinds[].never-recovered): a finding beside Held, which it
	// leaves alone, since a stalled cluster loses nothing.
	Live bool `json:"live"`
	// Breaks say where a run that did not hold broke its expectation, hop
	// by hop (model.Expectation.Breaks).
	Breaks      []string          `json:"breaks,omitempty"`
	Expectation model.Expectation `json:"expected"`
	Observation model.Observation `json:"observed"`
	// Reasons say, hop by hop, why the expected guarantee is what it is.
	Reasons []string `json:"reasons"`
	// Stats shadows Result.Stats with the checker's stats plus the run's.
	Stats Stats `json:"stats"`
	// HarnessError is set when the run itself went wrong (a worker could
	// not start, the final reads did not finish): the verdict is then not
	// to be trusted.
	HarnessError string `json:"harness-error,omitempty"`
	// Linearizability is porcupine's verdict per key (Outcome.Linearizability).
	Linearizability *checkers.LinResult `json:"linearizability,omitempty"`
}

// WriteResults writes out as dir's results.json; herr is the harness
// error that makes the verdict untrusted, if any.
func WriteResults(dir string, out *Outcome, herr error) error {
	r := Results{Result: out.Result, Expected: out.Expected.EndToEnd.String(), Observed: out.Observed.EndToEnd.String(),
		Held: out.Held, Live: out.Result.Liveness == nil || out.Result.Liveness.Live, Breaks: out.Expected.Breaks(out.Observed), Expectation: out.Expected, Observation: out.Observed, Reasons: out.Expected.Reasons(),
		Stats: out.Stats, Linearizability: out.Linearizability}
	if herr != nil {
		r.HarnessError = herr.Error()
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	path := filepath.Join(dir, report.ResultsFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
