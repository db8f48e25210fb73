package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
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

	verdict report.Verdict // as the page shows it
	wrote   string         // the directory whose results.json and index.html were written
}

// historyResults is results.json of a history checked without its
// scenario: the checker's result and the guarantee the history showed. With
// no expected guarantee it has no guarantee-held, and the page judges the
// history by the checker alone (VALID or INVALID).
type historyResults struct {
	checkers.Result
	Observed    model.Guarantee   `json:"observed-guarantee"`
	Observation model.Observation `json:"observed"`
}

func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "auto", "history format: jsonl, edn or auto (from the extension)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout instead of a summary")
	opts := checkerFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos check [--format jsonl|edn] [--json] PATH")
		fmt.Fprintln(stderr, "PATH is a history file or a directory holding history.jsonl. A directory is judged and")
		fmt.Fprintln(stderr, "its results.json and index.html are rewritten, so `kafkachaos view DIR` shows the verdict:")
		fmt.Fprintln(stderr, "against the expected guarantee of its scenario.json when it has one (a run directory),")
		fmt.Fprintln(stderr, "by the checker alone otherwise (a history imported from elsewhere). A history file is")
		fmt.Fprintln(stderr, "judged by the checker alone and nothing is written: pass DIR/history.jsonl to check a")
		fmt.Fprintln(stderr, "directory without writing to it.")
		fmt.Fprintln(stderr, "exit status: 0 the history showed no anomaly or the run held its guarantee, 1 otherwise, 2 error")
		fs.PrintDefaults()
	}
	path, exit, ok := parseOneArg(fs, args)
	if !ok {
		return exit
	}
	f, err := histories.ParseFormat(*format)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos check:", err)
		return exitError
	}
	limitMemory()
	out, err := check(path, f, *opts)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos check:", err)
		return exitError
	}
	note := stdout
	if *asJSON {
		note = stderr // stdout holds one JSON object
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "kafkachaos check:", err)
			return exitError
		}
	} else {
		printSummary(stdout, out)
	}
	if out.wrote != "" {
		fmt.Fprintf(note, "wrote %s and %s\n", filepath.Join(out.wrote, report.ResultsFile), filepath.Join(out.wrote, report.IndexFile))
	}
	if !out.verdict.Passed() {
		return exitInvalid
	}
	return exitValid
}

// checkMemoryLimit is the heap check collects to stay under unless
// GOMEMLIMIT says otherwise: left to its default, Go's collector lets the
// heap reach twice what is live, and the checker's state of a 10M-op
// history (about 800 MiB live) would then take 1.5 GiB. A history whose
// state outgrows the limit is checked all the same, with the collector
// running more often (at most half the CPU); docs/PERFORMANCE.md says what
// to set for larger ones.
const checkMemoryLimit = 900 << 20

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(checkMemoryLimit)
	}
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
	if !st.IsDir() {
		out, err := checkHistory(path, f, opts)
		out.verdict = report.Facts{Checked: true, Valid: out.Valid}.Verdict()
		return out, err
	}
	var out checkOutput
	if _, serr := os.Stat(filepath.Join(path, generators.FileName)); serr == nil {
		out, err = checkRunDir(path)
	} else {
		out, err = checkHistoryDir(path, f, opts)
	}
	if err != nil {
		return out, err
	}
	// The verdict as the page shows it, from what was written: a harness
	// error the run recorded still makes it NOT TRUSTED.
	out.wrote = path
	out.verdict, err = report.ReadVerdict(path)
	return out, err
}

// checkHistory judges a history file by the checker alone.
func checkHistory(path string, f histories.Format, opts checkers.Options) (checkOutput, error) {
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

// checkHistoryDir judges the history of a directory that has no scenario
// (imported from elsewhere) and writes its results.json and index.html.
func checkHistoryDir(dir string, f histories.Format, opts checkers.Options) (checkOutput, error) {
	out, err := checkHistory(filepath.Join(dir, report.HistoryFile), f, opts)
	if err != nil {
		return out, err
	}
	b, err := json.MarshalIndent(historyResults{Result: out.Result, Observed: out.Observed, Observation: out.Observation}, "", "  ")
	if err != nil {
		return out, err
	}
	if err := os.WriteFile(filepath.Join(dir, report.ResultsFile), append(b, '\n'), 0o644); err != nil {
		return out, err
	}
	return out, report.Write(dir, report.Options{})
}

// checkRunDir judges a run directory again, as the run itself would have;
// runner.Recheck writes its results.json and index.html.
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
	s := out.Stats
	fmt.Fprintf(w, "%s: %s — observed %s (producer %s, consumer %s)\n", out.History, out.verdict.Word,
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
