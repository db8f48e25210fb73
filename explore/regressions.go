package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Regression is a saved violation: a shrunk scenario and the verdict a
// replay must show again. It is testdata/regressions/NAME.json.
type Regression struct {
	// Claim is what the scenario is judged against (Space.Claim).
	Claim string `json:"claim"`
	// Violated is the guarantee the runs failed to show, Observed the one
	// the saved run showed, Anomalies the loss and duplication anomaly
	// kinds a replay must show (all of them).
	Violated  string   `json:"violated"`
	Observed  string   `json:"observed"`
	Anomalies []string `json:"anomalies"`
	// Attempts is how many runs a replay may take to see the violation.
	Attempts int                 `json:"attempts"`
	Scenario generators.Scenario `json:"scenario"`
}

// NewRegression pins s and the verdict v of its failing run.
func NewRegression(claim string, s generators.Scenario, v Verdict, attempts int) Regression {
	s.Replay = "" // a run directory's path, meaningless elsewhere
	return Regression{Claim: claim, Violated: v.Expected, Observed: v.Observed,
		Anomalies: slices.Clone(v.Anomalies), Attempts: attempts, Scenario: s}
}

// SaveRegression writes r to dir/name.json.
func SaveRegression(dir, name string, r Regression) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("regression name %q: want a plain file name", name)
	}
	if err := r.validate(); err != nil {
		return "", fmt.Errorf("regression %s: %w", name, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// LoadRegression reads one saved regression; errors name the file and the
// field.
func LoadRegression(path string) (Regression, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Regression{}, err
	}
	var raw struct {
		Regression
		Scenario json.RawMessage `json:"scenario"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Regression{}, fmt.Errorf("%s: %w", path, err)
	}
	r := raw.Regression
	if len(raw.Scenario) == 0 {
		return Regression{}, fmt.Errorf("%s: field scenario: missing", path)
	}
	if r.Scenario, err = generators.Parse(raw.Scenario); err != nil {
		return Regression{}, fmt.Errorf("%s: field scenario: %w", path, err)
	}
	if err := r.validate(); err != nil {
		return Regression{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func (r Regression) validate() error {
	if r.Claim != ClaimModel {
		if _, err := model.ParseGuarantee(r.Claim); err != nil {
			return fmt.Errorf("field claim: %q is neither %q nor a guarantee: %w", r.Claim, ClaimModel, err)
		}
	}
	for field, g := range map[string]string{"violated": r.Violated, "observed": r.Observed} {
		if _, err := model.ParseGuarantee(g); err != nil {
			return fmt.Errorf("field %s: %w", field, err)
		}
	}
	switch {
	case len(r.Anomalies) == 0:
		return errors.New("field anomalies: empty; a regression pins at least one anomaly kind")
	case r.Attempts < 1:
		return fmt.Errorf("field attempts: %d, want at least 1", r.Attempts)
	}
	return nil
}

// LoadRegressions reads every *.json of dir, keyed by file name without
// .json; a bad file is named in the error and the good ones still load.
func LoadRegressions(dir string) (map[string]Regression, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]Regression{}
	var errs []error
	for _, p := range paths {
		r, err := LoadRegression(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = r
	}
	return out, errors.Join(errs...)
}

// Replay runs r's scenario up to r.Attempts times with judge (which must
// judge against r.Claim) and returns the first run's verdict that violates
// the claim with every pinned anomaly kind, or an error saying what the
// attempts showed.
func Replay(ctx context.Context, r Regression, judge Judge) (Verdict, error) {
	var seen []string
	for i := range r.Attempts {
		v, err := judge(ctx, r.Scenario)
		switch {
		case err != nil:
			seen = append(seen, fmt.Sprintf("attempt %d: harness error: %v", i+1, err))
		case v.Violated && containsAll(v.Anomalies, r.Anomalies):
			return v, nil
		default:
			seen = append(seen, fmt.Sprintf("attempt %d: violated %v, observed %s, anomalies %v", i+1, v.Violated, v.Observed, v.Anomalies))
		}
	}
	return Verdict{}, fmt.Errorf("no attempt of %d violated %s with anomalies %v: %s",
		r.Attempts, r.Violated, r.Anomalies, strings.Join(seen, "; "))
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
