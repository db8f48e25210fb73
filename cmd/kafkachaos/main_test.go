package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
)

// cli runs the command in process and returns exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

const validHistory = `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":1}]}
{"index":1,"time":2,"process":0,"type":"ok","f":"send","value":[{"f":"send","key":1,"value":1,"offset":0}]}
{"index":2,"time":3,"process":1,"type":"invoke","f":"poll","value":[{"f":"poll"}]}
{"index":3,"time":4,"process":1,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[0,1]]}}]}
`

// lostHistory acknowledges value 2 at offset 1, but the only read skips from
// offset 0 to offset 2: a lost write.
const lostHistory = `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":1},{"f":"send","key":1,"value":2},{"f":"send","key":1,"value":3}]}
{"index":1,"time":2,"process":0,"type":"ok","f":"send","value":[{"f":"send","key":1,"value":1,"offset":0},{"f":"send","key":1,"value":2,"offset":1},{"f":"send","key":1,"value":3,"offset":2}]}
{"index":2,"time":3,"process":1,"type":"invoke","f":"poll","value":[{"f":"poll"}]}
{"index":3,"time":4,"process":1,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[0,1],[2,3]]}}]}
`

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckValidExitsZero(t *testing.T) {
	code, out, errs := cli(t, "check", write(t, "h.jsonl", validHistory))
	if code != exitValid || !strings.Contains(out, "VALID") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// check keeps its heap under a limit (so a 10M-op history fits in 1 GiB),
// and GOMEMLIMIT overrides it.
func TestCheckLimitsMemoryUnlessGOMEMLIMIT(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	cli(t, "check", write(t, "h.jsonl", validHistory))
	if got := debug.SetMemoryLimit(-1); got != checkMemoryLimit {
		t.Fatalf("memory limit %d after check, want %d", got, checkMemoryLimit)
	}
	t.Setenv("GOMEMLIMIT", "4GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	cli(t, "check", write(t, "h.jsonl", validHistory))
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("memory limit %d after check under GOMEMLIMIT, want it left alone", got)
	}
}

func TestCheckJSONReportsLostWrite(t *testing.T) {
	code, out, _ := cli(t, "check", "--json", write(t, "h.jsonl", lostHistory))
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d", code, exitInvalid)
	}
	var got struct {
		Valid     bool                        `json:"valid"`
		Types     []string                    `json:"anomaly-types"`
		Anomalies map[string][]map[string]any `json:"anomalies"`
		Observed  string                      `json:"observed-guarantee"`
		Stats     map[string]any              `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if got.Valid || !contains(got.Types, "lost-write") || got.Observed != "at-most-once" || got.Stats == nil {
		t.Fatalf("got %+v", got)
	}
	if len(got.Anomalies["lost-write"]) != 1 {
		t.Fatalf("want one lost-write case, got %v", got.Anomalies["lost-write"])
	}
}

func TestCheckTruncatedLastLineWarns(t *testing.T) {
	cut := validHistory + `{"index":4,"time":5,"proc`
	code, out, _ := cli(t, "check", write(t, "h.jsonl", cut))
	if code != exitValid || !strings.Contains(out, "warning") || !strings.Contains(out, ":5:") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

func TestCheckBrokenMiddleLineExitsTwoNamingLine(t *testing.T) {
	lines := strings.SplitAfter(validHistory, "\n")
	lines[1] = `{"index":1,"time":2,"process":0,"type":"okk","f":"send","value":[]}` + "\n"
	code, _, errs := cli(t, "check", write(t, "h.jsonl", strings.Join(lines, "")))
	if code != exitError || !strings.Contains(errs, "h.jsonl:2") || !strings.Contains(errs, `"type"`) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestCheckRunDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(validHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := cli(t, "check", dir); code != exitValid {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestCheckRunDirectoryRejudgesIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(lostHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	saveScenario(t, dir)
	code, out, errs := cli(t, "check", "--json", dir)
	if code != exitInvalid {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got struct {
		Expected string `json:"expected-guarantee"`
		Held     *bool  `json:"guarantee-held"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Held == nil || *got.Held || got.Expected == "" {
		t.Fatalf("a lost write under %s was not judged a broken guarantee: %s", got.Expected, out)
	}
	for _, f := range []string{"results.json", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("check did not write %s: %v", f, err)
		}
	}
}

// saveScenario saves in dir a scenario that expects at-least-once: an
// idempotent producer, a consumer that commits after processing.
func saveScenario(t *testing.T, dir string) {
	t.Helper()
	s := generators.Random(1)
	s.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksAll, Retries: 3, EnableIdempotence: true, MaxInFlight: 1}
	s.Topic = model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2}
	s.Consumer.ConsumerConfig = model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}
	// A re-check judges the history, not the schedule; the drawn faults
	// were drawn for another commit strategy and need not suit this one.
	s.Nemesis = nil
	if err := generators.Save(dir, s); err != nil {
		t.Fatal(err)
	}
}

// A run directory whose scenario.json this build refuses is an error
// naming the field, never a verdict.
func TestCheckRunDirectoryWithABadScenarioExitsTwo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(validHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	saveScenario(t, dir)
	path := filepath.Join(dir, generators.FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "{", `{"client": "kcat",`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "check", dir)
	if code != exitError || !strings.Contains(errs, `unknown client "kcat"`) || strings.Contains(out, "VALID") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d naming the client", code, out, errs, exitError)
	}
}

func TestCheckMissingFileExitsTwo(t *testing.T) {
	if code, _, _ := cli(t, "check", filepath.Join(t.TempDir(), "nope.jsonl")); code != exitError {
		t.Fatalf("exit %d", code)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	in := write(t, "h.jsonl", lostHistory)
	code, edn, errs := cli(t, "export", in)
	if code != exitValid || !strings.Contains(edn, ":send") {
		t.Fatalf("export: exit %d, stderr %q", code, errs)
	}
	code, back, errs := cli(t, "import", write(t, "h.edn", edn))
	if code != exitValid {
		t.Fatalf("import: exit %d, stderr %q", code, errs)
	}
	if back != lostHistory {
		t.Fatalf("round trip changed the history:\n%s\nwant\n%s", back, lostHistory)
	}
}

func TestUnknownCommandExitsTwo(t *testing.T) {
	if code, _, _ := cli(t, "frobnicate"); code != exitError {
		t.Fatalf("exit %d", code)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Every subcommand that takes one path refuses none or two with its usage
// and exit 2, and a bad flag with exit 2.
func TestOnePathCommandsRefuseOtherArgCounts(t *testing.T) {
	for _, name := range []string{"check", "view", "import", "export"} {
		for _, args := range [][]string{{name}, {name, "a", "b"}, {name, "--no-such-flag", "a"}} {
			code, _, errs := cli(t, args...)
			if code != exitError || !strings.Contains(errs, "kafkachaos "+name) && !strings.Contains(errs, "no-such-flag") {
				t.Errorf("%v: exit %d, stderr %q; want 2 and the usage or the bad flag named", args, code, errs)
			}
		}
	}
}

// `check DIR` leaves its verdict in DIR, so that `view DIR` and `summary`
// show it: a run directory is judged against its scenario.json, a folder
// holding only a history (imported from elsewhere) by the checker alone.
func TestCheckDirectoryLeavesTheVerdictForView(t *testing.T) {
	for _, c := range []struct {
		name, history string
		scenario      bool
		word          string
	}{
		{"history only, valid", validHistory, false, "VALID"},
		{"history only, lost write", lostHistory, false, "INVALID"},
		{"run directory, lost write", lostHistory, true, "NOT HELD"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, report.HistoryFile), []byte(c.history), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.scenario {
			saveScenario(t, dir)
		}
		_, out, errs := cli(t, "check", dir)
		if want := "wrote " + filepath.Join(dir, report.ResultsFile); !strings.Contains(out, want) {
			t.Errorf("%s: stdout does not say %q:\n%s%s", c.name, want, out, errs)
		}
		if code, out, errs := cli(t, "view", dir); code != exitValid {
			t.Fatalf("%s: view: exit %d\n%s%s", c.name, code, out, errs)
		}
		page, err := os.ReadFile(filepath.Join(dir, report.IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		if want := `data-verdict="` + c.word + `"`; !strings.Contains(string(page), want) {
			t.Errorf("%s: the page lacks %s", c.name, want)
		}
		if s := summarize(dir); s.Status != c.word {
			t.Errorf("%s: summary says %s (%s), want %s", c.name, s.Status, s.Error, c.word)
		}
	}
}

// dupHistory reads value 1 at two offsets: a duplicate, which a producer
// that retries without idempotence may write.
const dupHistory = `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":1}]}
{"index":1,"time":2,"process":0,"type":"ok","f":"send","value":[{"f":"send","key":1,"value":1,"offset":0}]}
{"index":2,"time":3,"process":1,"type":"invoke","f":"poll","value":[{"f":"poll"}]}
{"index":3,"time":4,"process":1,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[0,1],[1,1]]}}]}
`

// A run whose duplicates its configuration allows held: check says HELD
// and exits 0, as its page is amber rather than red.
func TestCheckHeldRunWithAllowedDuplicatesPasses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, report.HistoryFile), []byte(dupHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	s := generators.Random(1)
	s.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksAll, Retries: 3, MaxInFlight: 1}
	s.Topic = model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2}
	s.Consumer.ConsumerConfig = model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}
	s.Nemesis = nil
	if err := generators.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "check", dir)
	if code != exitValid || !strings.Contains(out, ": HELD — observed at-least-once") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A history file is checked and printed, and nothing is written beside it.
func TestCheckFileWritesNothing(t *testing.T) {
	h := write(t, "history.jsonl", lostHistory)
	cli(t, "check", h)
	if _, err := os.Stat(filepath.Join(filepath.Dir(h), report.ResultsFile)); err == nil {
		t.Fatal("checking a file wrote results.json beside it")
	}
}
