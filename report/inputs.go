package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/model"
)

// File names inside a run directory.
const (
	HistoryFile  = "history.jsonl"
	ResultsFile  = "results.json"
	ScenarioFile = "scenario.json"
	IndexFile    = "index.html"
	// RequestsFile is the clients' requests and responses at their proxies,
	// when they went through proxies (kafkachaos requests reads it).
	RequestsFile = "requests.jsonl.gz"
)

// runResults is results.json: a checker Result plus what the run adds.
type runResults struct {
	checkers.Result
	Expected string `json:"expected-guarantee"`
	Observed string `json:"observed-guarantee"`
	// Counts is the exact number of cases per anomaly when the checker kept
	// fewer cases than it found.
	Counts map[checkers.Anomaly]int64 `json:"counts"`
	// Linearizability is porcupine's verdict per key, when the run checked it.
	Linearizability *checkers.LinResult `json:"linearizability"`
	// Held is the run's verdict; nil when results.json has none (a
	// history checked on its own).
	Held *bool `json:"guarantee-held"`
	// Breaks say hop by hop where a run that did not hold broke.
	Breaks []string `json:"breaks"`
	// HarnessError is set when the run itself went wrong.
	HarnessError string `json:"harness-error"`
	// Expectation is the guarantee expected of each hop and why; nil hops
	// when results.json has none.
	Expectation struct {
		Producer *model.Hop `json:"producer"`
		Consumer *model.Hop `json:"consumer"`
	} `json:"expected"`
	// Observation is the model's reading of the anomalies: the guarantee
	// each hop showed, and the anomalies that change no hop's.
	Observation struct {
		Producer     *model.Guarantee   `json:"producer"`
		Consumer     *model.Guarantee   `json:"consumer"`
		OrderOnly    []checkers.Anomaly `json:"order-only"`
		Unclassified []checkers.Anomaly `json:"unclassified"`
	} `json:"observed"`
}

// loadResults reads results.json; ok is false when the run was not checked.
func loadResults(dir string) (res runResults, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return res, false, nil
	}
	if err != nil {
		return res, false, err
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return res, false, fmt.Errorf("%s: %w", filepath.Join(dir, ResultsFile), jsonErr(b, err))
	}
	return res, true, nil
}

// jsonErr adds the line and field to an encoding/json error.
func jsonErr(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %v", lineOf(b, se.Offset), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("line %d: field %s: %v", lineOf(b, te.Offset), strings.TrimPrefix(te.Field, "Result."), err)
	}
	return err
}

func lineOf(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return 1 + strings.Count(string(b[:off]), "\n")
}

// scenario is scenario.json kept generic: its schema belongs to the run.
type scenario struct {
	Fields []field // the well-known fields, in display order
	Raw    string  // the whole object, indented
}

type field struct{ Name, Value string }

// scenarioFields are shown first when present, under any of their spellings.
var scenarioFields = [][]string{
	{"test", "name"},
	{"cluster", "provider"},
	{"versions", "version", "kafka-version", "kafka"},
	{"brokers", "nodes"},
	{"client-config", "client", "client-version", "clients", "config", "producer", "consumer"},
	{"workload"},
	{"seed"},
	{"replay", "replay-command", "command"},
}

func loadScenario(dir string) (*scenario, error) {
	path := filepath.Join(dir, ScenarioFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonErr(b, err))
	}
	sc := &scenario{Raw: indentJSON(b)}
	for _, names := range scenarioFields {
		for _, n := range names {
			if v, ok := obj[n]; ok {
				sc.Fields = append(sc.Fields, field{n, compactValue(v)})
			}
		}
	}
	return sc, nil
}

// compactValue renders a JSON value on one line: strings unquoted, objects
// as k=v pairs, so a config reads like the properties a person would set.
func compactValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) == nil {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + compactValue(m[k])
		}
		return strings.Join(parts, "  ")
	}
	return string(v)
}

func indentJSON(b []byte) string {
	var out strings.Builder
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(b)
	}
	return out.String()
}

// visualization is one key's linearizability verdict, or another HTML file
// found in the run directory, with a link to its visualization.
type visualization struct {
	Key     string
	Outcome checkers.LinOutcome
	Reason  string
	File    string
}

// visualizations lists the keys that were not found linearizable (with
// porcupine's visualization when there is one) and any other .html file in
// the run directory, so nothing written there is hidden. Linearizable keys
// are only counted, in linSummary.
func visualizations(dir string, res runResults) []visualization {
	var out []visualization
	seen := map[string]bool{IndexFile: true}
	if lin := res.Linearizability; lin != nil {
		for _, k := range lin.Keys {
			if k.Outcome == checkers.LinOK {
				continue
			}
			v := visualization{Key: strconv.FormatInt(k.Key, 10), Outcome: k.Outcome, Reason: k.Reason}
			if k.Visualization != "" {
				v.File = filepath.Base(k.Visualization)
				seen[v.File] = true
			}
			out = append(out, v)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	for _, f := range files {
		if base := filepath.Base(f); !seen[base] {
			out = append(out, visualization{File: base})
		}
	}
	return out
}

// linSummary says in one line what the linearizability check found.
func linSummary(res runResults) string {
	lin := res.Linearizability
	if lin == nil {
		return ""
	}
	n := map[checkers.LinOutcome]int{}
	for _, k := range lin.Keys {
		n[k.Outcome]++
	}
	return fmt.Sprintf("%d of %d keys linearizable, %d not, %d undecided (time limit), %d skipped",
		n[checkers.LinOK], len(lin.Keys), n[checkers.LinIllegal], n[checkers.LinUnknown], n[checkers.LinSkipped])
}
