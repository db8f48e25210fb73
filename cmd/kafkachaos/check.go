package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// checkOutput is what `check --json` prints: the checker's result plus the
// guarantee the history showed.
type checkOutput struct {
	History string `json:"history"`
	checkers.Result
	Observed    model.Guarantee   `json:"observed-guarantee"`
	Observation model.Observation `json:"observation"`
	// For a run directory: the guarantee its scenario expected, whether the
	// observed one satisfies it, and porcupine's verdict per key.
	Expected        *model.Guarantee    `json:"expected-guarantee,omitempty"`
	Held            *bool               `json:"guarantee-held,omitempty"`
	Linearizability *checkers.LinResult `json:"linearizability,omitempty"`
}

func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "auto", "history format: jsonl, edn or auto (from the extension)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout instead of a summary")
	opts := checkerFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos check [--format jsonl|edn] [--json] PATH")
		fmt.Fprintln(stderr, "PATH is a history file or a run directory. A run directory is judged again from its")
		fmt.Fprintln(stderr, "scenario.json and history.jsonl: results.json and index.html are rewritten.")
		fs.PrintDefaults()
	}
	path, ok := parseOneArg(fs, args)
	if !ok {
		return exitError
	}
	f, err := histories.ParseFormat(*format)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos check:", err)
		return exitError
	}
	out, err := check(path, f, *opts)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos check:", err)
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "kafkachaos check:", err)
			return exitError
		}
	} else {
		printSummary(stdout, out)
	}
	if !out.Valid {
		return exitInvalid
	}
	return exitValid
}

// checkerFlags registers the checker's options (Jepsen's names where it has them).
func checkerFlags(fs *flag.FlagSet) *checkers.Options {
	o := &checkers.Options{}
	fs.BoolVar(&o.WWDeps, "ww-deps", false, "infer write-write dependencies between transactions (G0, ww edges in G1c)")
	fs.BoolVar(&o.SubscribeAllowsPollSkip, "subscribe-allows-poll-skip", false, "do not report poll-skip/nonmonotonic-poll for subscribed consumers")
	fs.IntVar(&o.MaxCases, "max-cases", 0, "keep at most this many cases per anomaly (counts stay exact); 0 keeps all")
	return o
}

func check(path string, f histories.Format, opts checkers.Options) (checkOutput, error) {
	st, err := os.Stat(path)
	if err != nil {
		return checkOutput{}, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, generators.FileName)); err == nil {
			return checkRunDir(path)
		}
		// A folder holding only a history: check it like a file.
		path = filepath.Join(path, report.HistoryFile)
	}
	src, err := histories.Open(path, f)
	if err != nil {
		return checkOutput{}, err
	}
	res, err := checkers.Check(src, opts)
	if err != nil {
		return checkOutput{}, err
	}
	for _, w := range src.Warnings() {
		res.Warnings = append(res.Warnings, w.String())
	}
	obs := model.Observe(res)
	return checkOutput{History: path, Result: res, Observed: obs.EndToEnd, Observation: obs}, nil
}

// checkRunDir judges a run directory again, as the run itself would have.
func checkRunDir(dir string) (checkOutput, error) {
	out, err := runner.Recheck(dir)
	if err != nil {
		return checkOutput{}, err
	}
	exp, held := out.Expected.EndToEnd, out.Held
	return checkOutput{History: filepath.Join(dir, report.HistoryFile), Result: out.Result,
		Observed: out.Observed.EndToEnd, Observation: out.Observed,
		Expected: &exp, Held: &held, Linearizability: out.Linearizability}, nil
}

func printSummary(w io.Writer, out checkOutput) {
	verdict := "VALID"
	if !out.Valid {
		verdict = "INVALID"
	}
	s := out.Stats
	fmt.Fprintf(w, "%s: %s — observed %s (producer %s, consumer %s)\n", out.History, verdict,
		out.Observed, out.Observation.Producer, out.Observation.Consumer)
	if out.Expected != nil {
		held := "held"
		if !*out.Held {
			held = "NOT held"
		}
		fmt.Fprintf(w, "  expected %s: %s\n", *out.Expected, held)
	}
	fmt.Fprintf(w, "  %d ops, %d keys, %d writes (%d acknowledged), %d records read\n",
		s.Ops, s.Keys, s.Writes, s.AckedWrite, s.Reads)
	for _, a := range out.AnomalyTypes {
		cases := out.Anomalies[a]
		fmt.Fprintf(w, "  %-22s %d\n", a, out.Counts[a])
		for i, c := range cases {
			if i == 3 {
				fmt.Fprintf(w, "      ... %d more\n", out.Counts[a]-3)
				break
			}
			fmt.Fprintf(w, "      %s (ops %s)\n", c.Explanation, joinInts(c.Ops))
		}
	}
	for _, warn := range out.Warnings {
		fmt.Fprintln(w, "  warning:", warn)
	}
}

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
