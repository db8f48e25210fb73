package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// makeRun makes root/test/run/ as the runner leaves it: scenario.json,
// history.jsonl and, when res is not nil, results.json marshalled from the
// runner's own type, as runner.writeResults does.
func makeRun(root, test, run string, res *runner.Results) (string, error) {
	dir := filepath.Join(root, test, run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s := generators.Random(1)
	s.Cluster.Provider = "embedded"
	if err := generators.Save(dir, s); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(validHistory), 0o644); err != nil {
		return "", err
	}
	if res == nil {
		return dir, nil
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644)
}

func writeRun(t testing.TB, root, test, run string, res *runner.Results) string {
	t.Helper()
	dir, err := makeRun(root, test, run, res)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func heldResults() *runner.Results {
	r := &runner.Results{Expected: "at-least-once", Observed: "exactly-once", Held: true}
	r.Valid = true
	r.Stats.FaultsFired = 4
	r.Stats.Faults = []runner.FaultStat{{Kind: "leader-shuffle", Fired: 4}}
	return r
}

func violatedResults() *runner.Results {
	r := &runner.Results{Expected: "exactly-once", Observed: "at-most-once", Held: false}
	r.AnomalyTypes = []checkers.Anomaly{"lost-write", "unseen"}
	r.Counts = map[checkers.Anomaly]int64{"lost-write": 2, "unseen": 5}
	r.Stats.FaultsFired = 3
	r.Liveness = &checkers.Liveness{Live: true, ClientHangs: make([]checkers.ClientHang, 1),
		Kinds: []checkers.KindLiveness{{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 1.5e9}}}}
	return r
}

// notLiveResults is a run that held, whose sends never came back after the
// last heal.
func notLiveResults() *runner.Results {
	r := heldResults()
	heal := int64(2e9)
	r.Liveness = &checkers.Liveness{Live: false, LastHealNs: &heal, Stalls: make([]checkers.Stall, 2),
		Kinds:            []checkers.KindLiveness{{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 3e9}, NeverRecovered: true}},
		WorstRealtimeLag: &checkers.RealtimeLag{Ns: 250e6}}
	return r
}

func harnessErrorResults() *runner.Results {
	r := heldResults()
	r.HarnessError = "fault kill (nemesis[0]) could not be healed: broker 2 | not back"
	r.Stats.Faults = []runner.FaultStat{{Kind: "kill", Fired: 4, Errors: []string{"heal: broker 2 not back"}}}
	return r
}

// fourRuns is a runs root with one run of each kind that results.json can
// say, plus a crashed run; it returns the root.
func fourRuns(t testing.TB) string {
	root := t.TempDir()
	writeRun(t, root, "TestChaosHeld", "20260101T000001.000Z", heldResults())
	writeRun(t, root, "TestChaosLost", "20260101T000002.000Z", violatedResults())
	writeRun(t, root, "TestChaosUnhealed", "20260101T000003.000Z", harnessErrorResults())
	writeRun(t, root, "TestChaosCrashed", "20260101T000004.000Z", nil)
	return root
}

func summaryJSON(t *testing.T, args ...string) (int, []runSummary, string) {
	t.Helper()
	code, out, errs := cli(t, append([]string{"summary", "--format", "json"}, args...)...)
	var got []runSummary
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s\nstderr %s", err, out, errs)
	}
	return code, got, errs
}

func byTest(runs []runSummary) map[string]runSummary {
	m := map[string]runSummary{}
	for _, r := range runs {
		m[r.Test] = r
	}
	return m
}

func TestSummaryJSONReadsEveryKindOfRun(t *testing.T) {
	code, runs, errs := summaryJSON(t, fourRuns(t))
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d", code, exitInvalid)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 4: %+v", len(runs), runs)
	}
	got := byTest(runs)
	held, lost, unhealed, crashed := got["TestChaosHeld"], got["TestChaosLost"], got["TestChaosUnhealed"], got["TestChaosCrashed"]
	if held.Status != "VALID" || held.Held == nil || !*held.Held || held.Cluster != "embedded" ||
		held.Expected != "at-least-once" || held.Observed != "exactly-once" || held.FaultsFired != 4 ||
		held.Run != "20260101T000001.000Z" || held.Error != "" {
		t.Errorf("held run: %+v", held)
	}
	if lost.Status != "NOT HELD" || lost.Held == nil || *lost.Held || lost.Counts["lost-write"] != 2 ||
		lost.Counts["unseen"] != 5 || lost.ClientHangs != 1 {
		t.Errorf("violated run: %+v", lost)
	}
	if unhealed.Status != "NOT TRUSTED" || !strings.Contains(unhealed.HarnessError, "could not be healed") ||
		unhealed.HealFailures != 1 || unhealed.Held == nil || !*unhealed.Held {
		t.Errorf("harness-error run: %+v", unhealed)
	}
	if crashed.Status != "NOT CHECKED" || crashed.Held != nil || crashed.Cluster != "embedded" ||
		!strings.Contains(crashed.Error, "no results.json") {
		t.Errorf("crashed run: %+v", crashed)
	}
	if !strings.Contains(errs, "no results.json") {
		t.Errorf("stderr does not name the crashed run: %q", errs)
	}
}

// The JSON field names are a contract for CI scripts: all present, always.
func TestSummaryJSONFieldNamesAreStable(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "TestChaosHeld", "1", heldResults())
	_, out, _ := cli(t, "summary", "--format", "json", root)
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	for k := range got[0] {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"client-hangs", "cluster", "counts", "dir", "error", "expected-guarantee", "faults-fired",
		"guarantee-held", "harness-error", "heal-failures", "live", "observed-guarantee", "recovery-ns", "run",
		"send-outage-ns", "stalls", "status", "test", "worst-lag-ns"}
	if !slices.Equal(names, want) {
		t.Fatalf("fields %v, want %v", names, want)
	}
}

func TestSummaryAllHeldExitsZero(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "TestChaosA", "1", heldResults())
	writeRun(t, root, "TestChaosB", "2", heldResults())
	code, out, errs := cli(t, "summary", root)
	if code != exitValid || errs != "" || !strings.Contains(out, "2 runs: 2 VALID") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// Each failing kind alone makes the exit status 1.
func TestSummaryAnyFailureExitsOne(t *testing.T) {
	for name, res := range map[string]*runner.Results{"violated": violatedResults(),
		"harness error": harnessErrorResults(), "crashed": nil, "not live": notLiveResults()} {
		root := t.TempDir()
		writeRun(t, root, "TestChaosOK", "1", heldResults())
		writeRun(t, root, "TestChaosBad", "2", res)
		if code, out, errs := cli(t, "summary", root); code != exitInvalid {
			t.Errorf("%s: exit %d, want 1; stdout %q stderr %q", name, code, out, errs)
		}
	}
}

// A run that held but whose sends never came back is NOT LIVE, with its
// liveness figures; a live run says its own; a run without results.json
// has none.
func TestSummaryLiveness(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "TestChaosDead", "1", notLiveResults())
	writeRun(t, root, "TestChaosLost", "2", violatedResults())
	writeRun(t, root, "TestChaosCrashed", "3", nil)
	_, runs, _ := summaryJSON(t, root)
	got := byTest(runs)
	dead, lost, crashed := got["TestChaosDead"], got["TestChaosLost"], got["TestChaosCrashed"]
	if dead.Status != statusNotLive || dead.Live == nil || *dead.Live || dead.SendOutageNs != 3e9 || dead.RecoveryNs != nil ||
		dead.Stalls != 2 || dead.WorstLagNs != 250e6 {
		t.Errorf("not-live run: %+v", dead)
	}
	if lost.Live == nil || !*lost.Live || lost.SendOutageNs != 1.5e9 || lost.RecoveryNs != nil || lost.Stalls != 0 {
		t.Errorf("live run: %+v", lost)
	}
	if crashed.Live != nil || crashed.RecoveryNs != nil || crashed.SendOutageNs != 0 {
		t.Errorf("run without results: %+v", crashed)
	}
	_, out, _ := cli(t, "summary", root)
	for _, want := range []string{"LIVE  SEND OUTAGE  RECOVERY  STALLS  WORST LAG", "NO    3s           never     2       250ms",
		"3 runs: 1 NOT LIVE, 1 NOT HELD, 1 NOT CHECKED"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestSummaryMalformedResultsNamesFileAndField(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"wrong type": {"{\n  \"expected-guarantee\": \"exactly-once\",\n  \"observed-guarantee\": 3\n}",
			"line 3: field observed-guarantee"},
		"nested wrong type": {`{"expected-guarantee": "none", "observed-guarantee": "none", "guarantee-held": true, "stats": {"faults-fired": "x"}}`,
			"field stats.faults-fired"},
		"bad guarantee": {`{"expected-guarantee": "twice", "observed-guarantee": "none", "guarantee-held": true}`,
			"field expected-guarantee"},
		"no verdict": {`{"expected-guarantee": "none", "observed-guarantee": "none"}`, "field guarantee-held: missing"},
		"cut short":  {"{\n  \"expected-guarantee\": \"no", "line 2"},
	}
	for name, c := range cases {
		root := t.TempDir()
		dir := writeRun(t, root, "TestChaosX", "1", heldResults())
		path := filepath.Join(dir, "results.json")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, runs, errs := summaryJSON(t, root)
		if code != exitInvalid || len(runs) != 1 || runs[0].Status != statusUnreadable {
			t.Errorf("%s: exit %d, runs %+v", name, code, runs)
			continue
		}
		for _, msg := range []string{runs[0].Error, errs} {
			if !strings.Contains(msg, path) || !strings.Contains(msg, c.want) {
				t.Errorf("%s: %q does not name %s and %q", name, msg, path, c.want)
			}
		}
	}
}

func TestSummaryTextIsAlignedTable(t *testing.T) {
	code, out, _ := cli(t, "summary", fourRuns(t))
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want a header, 4 runs and totals, got:\n%s", out)
	}
	col := strings.Index(lines[0], "EXPECTED")
	for _, l := range lines[1:5] {
		if f := strings.Fields(l[col:]); len(f) == 0 || (f[0] != "-" && !strings.HasSuffix(f[0], "-once")) {
			t.Errorf("EXPECTED column not aligned in %q", l)
		}
	}
	for _, want := range []string{"NOT HELD", "lost-write=2 unseen=5", "NOT TRUSTED", "4, 1 unhealed",
		"NOT CHECKED", "4 runs: 1 VALID, 1 NOT HELD, 1 NOT TRUSTED, 1 NOT CHECKED"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestSummaryMarkdownListsFailuresFirst(t *testing.T) {
	code, out, _ := cli(t, "summary", "--format", "markdown", fourRuns(t))
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| status") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 || !strings.HasPrefix(rows[3], "| VALID | `TestChaosHeld`") {
		t.Fatalf("want 4 rows, the held one last:\n%s", out)
	}
	for _, r := range rows[:3] {
		if !strings.HasPrefix(r, "| **NOT ") {
			t.Errorf("failing row not marked: %q", r)
		}
	}
	for _, r := range rows {
		if n := strings.Count(strings.ReplaceAll(r, `\|`, ""), "|"); n != 17 {
			t.Errorf("row has %d cell borders, want 17 (an unescaped | in a cell?): %q", n, r)
		}
	}
	if !strings.Contains(out, "|---|") || !strings.Contains(out, `broker 2 \| not back`) {
		t.Errorf("no separator row or unescaped |:\n%s", out)
	}
}

func TestSummaryUsageErrorsExitTwo(t *testing.T) {
	root := fourRuns(t)
	cases := map[string][]string{
		"no args":        {"summary"},
		"unknown format": {"summary", "--format", "yaml", root},
		"missing path":   {"summary", filepath.Join(root, "nope")},
		"flag after":     {"summary", root, "--format", "json"},
		"a file":         {"summary", filepath.Join(root, "TestChaosHeld", "20260101T000001.000Z", "results.json")},
		"bad flag":       {"summary", "--no-such-flag", root},
	}
	for name, args := range cases {
		code, out, errs := cli(t, args...)
		if code != exitError || out != "" || errs == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, a message and nothing on stdout", name, code, out, errs)
		}
	}
	if _, _, errs := cli(t, "summary"); !strings.Contains(errs, "usage: kafkachaos summary") {
		t.Errorf("no args: stderr %q lacks the usage", errs)
	}
}

// A root with no runs is the good case when only failed runs are kept.
func TestSummaryEmptyRootExitsZero(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "TestChaosA"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := cli(t, "summary", root); code != exitValid || !strings.Contains(out, "no runs under") {
		t.Errorf("text: exit %d, %q", code, out)
	}
	if code, out, _ := cli(t, "summary", "--format", "json", root); code != exitValid || strings.TrimSpace(out) != "[]" {
		t.Errorf("json: exit %d, %q", code, out)
	}
}

// A run directory named directly, and again under its root, is one line.
func TestSummaryRunDirArgumentAndDuplicates(t *testing.T) {
	root := t.TempDir()
	dir := writeRun(t, root, "TestChaosA", "20260101T000001.000Z", heldResults())
	code, runs, _ := summaryJSON(t, dir, root)
	if code != exitValid || len(runs) != 1 || runs[0].Test != "TestChaosA" {
		t.Fatalf("exit %d, runs %+v", code, runs)
	}
}

// A real run through the runner, summarized: the summary reads what the
// runner writes, not only what these tests write.
func TestSummaryOfARealRun(t *testing.T) {
	runs := t.TempDir()
	args := []string{"--workload", "produce", "--time-limit", "1s", "--keys", "1", "--producers", "1",
		"--nemesis", "leader-shuffle", "--runs", runs, "--keep", "--quiet"}
	var out, errb strings.Builder
	if code := runWith(args, &out, &errb); code != exitValid {
		t.Fatalf("run: exit %d; stdout %q stderr %q", code, out.String(), errb.String())
	}
	code, got, errs := summaryJSON(t, runs)
	if code != exitValid || len(got) != 1 {
		t.Fatalf("exit %d, runs %+v, stderr %q", code, got, errs)
	}
	r := got[0]
	if (r.Status != "VALID" && r.Status != "HELD") || r.Test != "run-produce" || r.Cluster != "embedded" || r.Expected == "" ||
		r.Observed == "" || r.FaultsFired == 0 {
		t.Fatalf("summary of a real run: %+v", r)
	}
}

func Example_summary() {
	root, err := os.MkdirTemp("", "summary")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	for i, res := range []*runner.Results{heldResults(), violatedResults()} {
		test := []string{"TestChaosHeld", "TestChaosLost"}[i]
		if _, err := makeRun(root, test, fmt.Sprintf("20260101T00000%d.000Z", i+1), res); err != nil {
			fmt.Println(err)
			return
		}
	}
	code := dispatch([]string{"summary", root}, os.Stdout, os.Stderr)
	fmt.Println("exit", code)
	// Output:
	// STATUS    TEST           RUN                   CLUSTER   EXPECTED       OBSERVED      HELD  ANOMALIES              FAULTS  HANGS  LIVE  SEND OUTAGE  RECOVERY  STALLS  WORST LAG  ERROR
	// VALID     TestChaosHeld  20260101T000001.000Z  embedded  at-least-once  exactly-once  yes   -                      4       0      yes   -            -         0       -          -
	// NOT HELD  TestChaosLost  20260101T000002.000Z  embedded  exactly-once   at-most-once  NO    lost-write=2 unseen=5  3       1      yes   1.5s         -         0       -          -
	// 2 runs: 1 VALID, 1 NOT HELD
	// exit 1
}

// heldWithDuplicatesResults held at-least-once with the duplicates a
// retrying producer without idempotence may write.
func heldWithDuplicatesResults() *runner.Results {
	r := heldResults()
	r.Observed, r.Valid = "at-least-once", false
	r.AnomalyTypes = []checkers.Anomaly{"duplicate"}
	r.Counts = map[checkers.Anomaly]int64{"duplicate": 12}
	return r
}

// The summary says of each run what its page and the runs index say: one
// rule, read from results.json. A held run with the anomalies its
// guarantee allows passes.
func TestSummaryStatusIsThePagesVerdict(t *testing.T) {
	for name, res := range map[string]*runner.Results{"held": heldResults(), "held with duplicates": heldWithDuplicatesResults(),
		"not held": violatedResults(), "harness error": harnessErrorResults()} {
		dir := writeRun(t, t.TempDir(), "TestChaosX", "1", res)
		s := summarize(dir)
		if word := pageWord(t, dir); s.Status != word {
			t.Errorf("%s: summary says %q, the page %q", name, s.Status, word)
		}
		if want := res.Held && res.HarnessError == ""; s.passed() != want {
			t.Errorf("%s: passed = %v", name, s.passed())
		}
	}
}

// pageWord renders dir's page and returns its verdict word.
func pageWord(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	if err := report.Render(&b, dir, report.Options{}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`id="verdict" [^>]*data-verdict="([A-Z ]+)"`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatal("the page has no verdict")
	}
	return m[1]
}
