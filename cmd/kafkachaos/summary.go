package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// A run's status in a summary is its page's verdict word (report.Facts:
// VALID, HELD, NOT HELD, NOT TRUSTED, NOT CHECKED, INVALID), read by the
// same rule, so CI and the viewer never disagree: a run whose anomalies its
// expected guarantee allows (a weak configuration showing its weakness) is
// HELD and passes. Two statuses are the summary's own: a results.json it
// cannot read, and a run that passed but whose cluster never came back
// after the last heal, which its page marks NOT LIVE beside the verdict.
const (
	statusUnreadable = "UNREADABLE" // results.json (or scenario.json) could not be read
	statusNotLive    = "NOT LIVE"   // passed, but a kind of op never came back after the last heal
)

// runSummary is one run's line. Its JSON field names are a contract for CI
// scripts: every field is always present.
type runSummary struct {
	Test     string `json:"test"` // the run directory's parent folder
	Run      string `json:"run"`  // the run directory's own name (its UTC time)
	Dir      string `json:"dir"`
	Status   string `json:"status"`
	Cluster  string `json:"cluster"` // scenario.json's cluster provider; "" when unknown
	Expected string `json:"expected-guarantee"`
	Observed string `json:"observed-guarantee"`
	// Held is results.json's guarantee-held; null when there is none.
	Held   *bool                      `json:"guarantee-held"`
	Counts map[checkers.Anomaly]int64 `json:"counts"`
	// FaultsFired is stats.faults-fired. HealFailures counts the faults'
	// "heal: " errors; the runner keeps at most five errors per fault, so
	// it is a lower bound (any failed heal also sets the harness error).
	FaultsFired  int64 `json:"faults-fired"`
	HealFailures int   `json:"heal-failures"`
	ClientHangs  int   `json:"client-hangs"`
	// Live is results.json's liveness (checkers.Headline): null when
	// there is none; the figures are 0 (null for recovery) where nothing
	// was measured.
	Live         *bool  `json:"live"`
	SendOutageNs int64  `json:"send-outage-ns"`
	RecoveryNs   *int64 `json:"recovery-ns"`
	Stalls       int    `json:"stalls"`
	WorstLagNs   int64  `json:"worst-lag-ns"`
	HarnessError string `json:"harness-error"`
	// Error says why the run could not be summarized in full.
	Error string `json:"error"`

	types    []checkers.Anomaly // Counts' keys in results.json's order
	liveness checkers.Headline
	verdict  report.Verdict
}

func (s runSummary) passed() bool { return s.verdict.Passed() && s.Status != statusNotLive }

func summaryCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text (an aligned table), markdown (a GitHub table, failures first) or json (an array)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos summary [--format text|markdown|json] RUNS...")
		fmt.Fprintln(stderr, "RUNS are run directories or folders holding them (e.g. runs/), searched recursively.")
		fmt.Fprintln(stderr, "exit status: 0 every run held and was live (VALID, HELD); 1 a run did not hold (NOT HELD, INVALID),")
		fmt.Fprintln(stderr, "was not live (NOT LIVE), had a harness error (NOT TRUSTED) or could not be read (NOT CHECKED,")
		fmt.Fprintln(stderr, "UNREADABLE); 2 bad usage, a missing path included (a folder holding no runs is exit 0)")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	write, ok := summaryWriter(*format)
	if !ok {
		fmt.Fprintf(stderr, "kafkachaos summary: --format %q: want text, markdown or json\n", *format)
		return exitError
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitError
	}
	for _, a := range fs.Args() {
		if strings.HasPrefix(a, "-") {
			fmt.Fprintf(stderr, "kafkachaos summary: %q after a path: flags go before RUNS\n", a)
			return exitError
		}
	}
	dirs, err := findRuns(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos summary:", err)
		return exitError
	}
	runs := make([]runSummary, len(dirs))
	code := exitValid
	for i, d := range dirs {
		runs[i] = summarize(d)
		if runs[i].Error != "" {
			fmt.Fprintln(stderr, "kafkachaos summary:", runs[i].Error)
		}
		if !runs[i].passed() {
			code = exitInvalid
		}
	}
	if err := write(stdout, runs, fs.Args()); err != nil {
		fmt.Fprintln(stderr, "kafkachaos summary:", err)
		return exitError
	}
	return code
}

// findRuns lists the run directories at or under paths, in walk order: a
// directory holding results.json or history.jsonl (a run the harness did
// not finish judging is listed too). A path that does not exist is an
// error: a mistyped root must not read as "no runs, all fine".
func findRuns(paths []string) ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (want a run directory or a folder of runs)", p)
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || (d.Name() != report.ResultsFile && d.Name() != report.HistoryFile) {
				return nil
			}
			dir := filepath.Dir(path)
			if !seen[dir] {
				seen[dir] = true
				dirs = append(dirs, dir)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return dirs, nil
}

// summarize reads one run directory. What cannot be read becomes the run's
// Error and status, never a reason to stop summarizing the others.
func summarize(dir string) runSummary {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	s := runSummary{Test: filepath.Base(filepath.Dir(abs)), Run: filepath.Base(abs), Dir: dir,
		Counts: map[checkers.Anomaly]int64{}}
	var errs []error
	s.Cluster, err = readCluster(dir)
	errs = append(errs, err)
	res, found, err := readResults(dir)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		s.Status, s.Error = statusUnreadable, err.Error()
		return s
	}
	if !found {
		s.Error = fmt.Sprintf("%s: no %s: the harness stopped before judging the run; `kafkachaos check %s` judges it",
			dir, report.ResultsFile, dir)
	} else {
		s.fill(res)
	}
	s.verdict = report.Facts{Checked: found, HarnessError: s.HarnessError, Held: s.Held, Valid: res.Valid, Breaks: res.Breaks}.Verdict()
	s.Status = s.verdict.Word
	if s.verdict.Passed() && s.liveness.NotLive {
		s.Status = statusNotLive
	}
	return s
}

func (s *runSummary) fill(res judged) {
	s.Expected, s.Observed, s.HarnessError = res.Expected, res.Observed, res.HarnessError
	if res.judged {
		s.Held = &res.Held
	}
	s.FaultsFired = res.Stats.FaultsFired
	for _, f := range res.Stats.Faults {
		for _, e := range f.Errors {
			if strings.HasPrefix(e, "heal: ") {
				s.HealFailures++
			}
		}
	}
	if res.Liveness != nil {
		s.ClientHangs = len(res.Liveness.ClientHangs)
	}
	h := res.Liveness.Headline()
	live := !h.NotLive
	s.liveness, s.Live, s.Stalls = h, &live, h.Stalls
	s.SendOutageNs, s.WorstLagNs = int64(h.SendOutage), int64(h.WorstLag)
	if h.Recovered {
		rec := int64(h.Recovery)
		s.RecoveryNs = &rec
	}
	for _, a := range res.AnomalyTypes {
		s.Counts[a], s.types = res.Counts[a], append(s.types, a)
	}
}

// readCluster is scenario.json's cluster provider; "" when the run has no
// scenario.json. Only that field is decoded, so a scenario written by an
// older or newer harness still names its cluster.
func readCluster(dir string) (string, error) {
	path := filepath.Join(dir, generators.FileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var sc struct {
		Cluster generators.Cluster `json:"cluster"`
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		return "", fmt.Errorf("%s: %w", path, jsonAt(b, err))
	}
	return sc.Cluster.Provider, nil
}

// judged is results.json in the runner's own type; judged is false for a
// history checked without its scenario, which has no expected guarantee
// and so no guarantee-held.
type judged struct {
	runner.Results
	judged bool
}

// readResults decodes results.json; found is false when the run has none.
func readResults(dir string) (res judged, found bool, err error) {
	path := filepath.Join(dir, report.ResultsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, false, nil
	}
	if err != nil {
		return res, true, err
	}
	if err := json.Unmarshal(b, &res.Results); err != nil {
		return res, true, fmt.Errorf("%s: %w", path, jsonAt(b, err))
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(b, &present); err != nil {
		return res, true, fmt.Errorf("%s: %w", path, jsonAt(b, err))
	}
	// A results.json lacking one of these is malformed, not a run that
	// held nothing: a verdict needs the guarantee it judged, and the other
	// way round.
	_, res.judged = present["guarantee-held"]
	_, expected := present["expected-guarantee"]
	need := []string{"observed-guarantee"}
	if res.judged || expected {
		need = append(need, "expected-guarantee", "guarantee-held")
	}
	for _, f := range need {
		if _, ok := present[f]; !ok {
			return res, true, fmt.Errorf("%s: field %s: missing", path, f)
		}
	}
	gs := []struct{ field, value string }{{"observed-guarantee", res.Observed}}
	if res.judged {
		gs = append(gs, struct{ field, value string }{"expected-guarantee", res.Expected})
	}
	for _, g := range gs {
		if _, err := model.ParseGuarantee(g.value); err != nil {
			return res, true, fmt.Errorf("%s: field %s: %w", path, g.field, err)
		}
	}
	return res, true, nil
}

// jsonAt adds the line, and the field where encoding/json knows it, to a
// decode error of b.
func jsonAt(b []byte, err error) error {
	lineOf := func(off int64) int { return 1 + strings.Count(string(b[:min(max(off, 0), int64(len(b)))]), "\n") }
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %w", lineOf(se.Offset), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("line %d: field %s: %w", lineOf(te.Offset), te.Field, err)
	}
	return err
}

// summaryWriter prints the runs in one --format; roots name what was
// searched, for the message when nothing was found.
func summaryWriter(format string) (func(w io.Writer, runs []runSummary, roots []string) error, bool) {
	switch format {
	case "text":
		return writeSummaryText, true
	case "markdown":
		return writeSummaryMarkdown, true
	case "json":
		return writeSummaryJSON, true
	}
	return nil, false
}

func writeSummaryJSON(w io.Writer, runs []runSummary, _ []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(append([]runSummary{}, runs...)) // [] rather than null when empty
}

// textErrorWidth bounds the error column of the text table; the whole
// message is on stderr (read errors) or in results.json (harness errors).
const textErrorWidth = 80

func writeSummaryText(w io.Writer, runs []runSummary, roots []string) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "no runs under %s\n", strings.Join(roots, ", "))
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(summaryColumns(), "\t")))
	for _, r := range runs {
		fmt.Fprintln(tw, strings.Join(r.cells(dash(truncate(oneLine(r.problem()), textErrorWidth))), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, totals(runs))
	return err
}

// writeSummaryMarkdown writes a GitHub table for a CI job's step summary:
// the runs that did not pass first, their status in bold.
func writeSummaryMarkdown(w io.Writer, runs []runSummary, roots []string) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "**kafkachaos**: no runs under `%s`.\n", strings.Join(roots, "`, `"))
		return err
	}
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b runSummary) int {
		switch {
		case a.passed() == b.passed():
			return 0
		case b.passed():
			return -1
		}
		return 1
	})
	fmt.Fprintf(w, "**kafkachaos**: %s\n\n", totals(runs))
	cols := summaryColumns()
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range sorted {
		cells := r.cells(mdCell(dash(oneLine(r.problem()))))
		if !r.passed() {
			cells[0] = "**" + cells[0] + "**"
		}
		cells[1], cells[2] = "`"+cells[1]+"`", "`"+cells[2]+"`"
		if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")); err != nil {
			return err
		}
	}
	return nil
}

// summaryColumns names a summary table's columns, in cells' order.
func summaryColumns() []string {
	cols := []string{"status", "test", "run", "cluster", "expected", "observed", "held", "anomalies", "faults", "hangs", "live"}
	return append(append(cols, checkers.HeadlineColumns()...), "error")
}

// cells is the run's table line, problem its error cell as the format
// writes it.
func (s runSummary) cells(problem string) []string {
	live := []string{"-", "-", "-", "-", "-"} // no results.json: nothing measured
	if s.Live != nil {
		live = append([]string{heldWord(s.Live)}, s.liveness.Cells()...)
	}
	cells := []string{s.Status, s.Test, s.Run, dash(s.Cluster), dash(s.Expected), dash(s.Observed), heldWord(s.Held),
		anomalyCounts(s), faults(s), strconv.Itoa(s.ClientHangs)}
	return append(append(cells, live...), problem)
}

// problem is what went wrong with the run itself, if anything.
func (s runSummary) problem() string {
	if s.Error != "" {
		return s.Error
	}
	return s.HarnessError
}

// totals counts the runs by status, best first, e.g. "3 runs: 1 VALID,
// 2 NOT HELD".
func totals(runs []runSummary) string {
	n := map[string]int{}
	var order []runSummary
	for _, r := range runs {
		if n[r.Status] == 0 {
			order = append(order, r)
		}
		n[r.Status]++
	}
	slices.SortStableFunc(order, func(a, b runSummary) int { return a.rank() - b.rank() })
	parts := []string{}
	for _, r := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[r.Status], r.Status))
	}
	noun := "runs"
	if len(runs) == 1 {
		noun = "run"
	}
	return fmt.Sprintf("%d %s: %s", len(runs), noun, strings.Join(parts, ", "))
}

// rank orders statuses as their verdicts, NOT LIVE after those that pass
// and UNREADABLE last.
func (s runSummary) rank() int {
	switch s.Status {
	case statusUnreadable:
		return 100
	case statusNotLive:
		return 3
	}
	return 2 * s.verdict.Severity()
}

func heldWord(held *bool) string {
	switch {
	case held == nil:
		return "-"
	case *held:
		return "yes"
	}
	return "NO"
}

// anomalyCounts is e.g. "lost-write=2 duplicate=1", in results.json's order.
func anomalyCounts(s runSummary) string {
	if len(s.types) == 0 {
		return "-"
	}
	parts := make([]string, len(s.types))
	for i, a := range s.types {
		parts[i] = fmt.Sprintf("%s=%d", a, s.Counts[a])
	}
	return strings.Join(parts, " ")
}

func faults(s runSummary) string {
	if s.HealFailures == 0 {
		return fmt.Sprint(s.FaultsFired)
	}
	return fmt.Sprintf("%d, %d unhealed", s.FaultsFired, s.HealFailures)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// mdCell keeps a value inside its table cell: a | would end it.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
