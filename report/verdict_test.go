package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/model"
)

// renderResults renders a run directory with a two-op history and the given
// results.json.
func renderResults(t *testing.T, results string) string {
	t.Helper()
	dir := t.TempDir()
	history := `{"index":0,"time":1,"process":1,"type":"invoke","f":"txn","value":[{"f":"send","key":0,"value":1}]}` + "\n" +
		`{"index":1,"time":2,"process":1,"type":"info","f":"client-hang","value":{"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(results), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Render(&b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var verdictAttrs = regexp.MustCompile(`<section id="verdict" class="verdict ([a-z]+)" data-valid="([a-z]+)" data-verdict="([A-Z ]+)"`)

// pageVerdict returns the verdict section's class, data-valid and word.
func pageVerdict(t *testing.T, page string) (class, valid, word string) {
	t.Helper()
	m := verdictAttrs.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("page has no verdict section")
	}
	return m[1], m[2], m[3]
}

// A clean checker result with a harness error: the run cannot be trusted,
// and the page must say so first, never in green.
func TestHarnessErrorIsShownFirstAndNeverGreen(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},
		"expected-guarantee":"exactly-once","observed-guarantee":"exactly-once","guarantee-held":true,
		"harness-error":"nemesis: heal failed: kill: node 2: restart timed out"}`)
	class, valid, word := pageVerdict(t, page)
	if class != "untrusted" || valid != "false" || word != "NOT TRUSTED" {
		t.Fatalf("verdict = %s / data-valid %s / %s, want untrusted / false / NOT TRUSTED", class, valid, word)
	}
	he := strings.Index(page, `<section id="harness-error"`)
	if he < 0 || !strings.Contains(page[he:], "nemesis: heal failed: kill: node 2: restart timed out") {
		t.Fatal("the harness error is not on the page")
	}
	if v := strings.Index(page, `<section id="verdict"`); he > v {
		t.Fatal("the harness error comes after the verdict")
	}
	if strings.Contains(page, "<title>✔") {
		t.Fatal("the title marks an untrusted run as passed")
	}
}

// The run's verdict is read, not recomputed from the guarantee names: a run
// that did not hold is not green even with no anomaly and guarantees that
// would satisfy each other.
func TestHeldFalseWithoutAnomaliesIsNotGreen(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},
		"expected-guarantee":"at-least-once","observed-guarantee":"exactly-once","guarantee-held":false}`)
	class, valid, word := pageVerdict(t, page)
	if class != "bad" || valid != "false" || word != "NOT HELD" {
		t.Fatalf("verdict = %s / data-valid %s / %s, want bad / false / NOT HELD", class, valid, word)
	}
	if !strings.Contains(page, `<div class="gnote" id="held">the expected guarantee did not hold</div>`) {
		t.Fatal("the guarantee note does not say what results.json says")
	}
}

// A run that broke one hop says which, as results.json names it.
func TestNotHeldNamesTheBrokenHop(t *testing.T) {
	page := renderResults(t, `{"valid":false,"anomaly-types":["duplicate"],"anomalies":{"duplicate":[{"ops":[0],"explanation":"x"}]},
		"expected-guarantee":"at-least-once","observed-guarantee":"at-least-once","guarantee-held":false,
		"breaks":["producer hop: expected exactly-once, observed at-least-once"]}`)
	want := `class="vwhy">the expected guarantee did not hold: producer hop: expected exactly-once, observed at-least-once</div>`
	if !strings.Contains(page, want) {
		t.Fatal("the page does not name the broken hop")
	}
}

func TestUnclassifiedAnomaliesAreListed(t *testing.T) {
	page := renderResults(t, `{"valid":false,"anomaly-types":["torn-read"],"anomalies":{"torn-read":[{"ops":[0],"explanation":"x"}]},
		"expected-guarantee":"exactly-once","observed-guarantee":"exactly-once","guarantee-held":false,
		"observed":{"producer":"exactly-once","consumer":"exactly-once","end-to-end":"exactly-once","unclassified":["torn-read"]}}`)
	i := strings.Index(page, `id="unclassified"`)
	if i < 0 || !strings.Contains(page[i:i+300], `<a href="#a-torn-read">torn-read</a>`) {
		t.Fatal("the unclassified anomaly is not listed in the verdict")
	}
	if class, _, _ := pageVerdict(t, page); class == "ok" {
		t.Fatal("a run with an unclassified anomaly is green")
	}
}

func TestCleanRunIsGreen(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},
		"expected-guarantee":"exactly-once","observed-guarantee":"exactly-once","guarantee-held":true}`)
	class, valid, word := pageVerdict(t, page)
	if class != "ok" || valid != "true" || word != "VALID" {
		t.Fatalf("verdict = %s / data-valid %s / %s, want ok / true / VALID", class, valid, word)
	}
	if strings.Contains(page, `id="harness-error"`) || strings.Contains(page, `id="liveness"`) || strings.Contains(page, `id="unclassified"`) {
		t.Fatal("a clean run shows a harness error, liveness or unclassified section")
	}
}

func TestClientHangsAreALivenessSection(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},"guarantee-held":true,
		"liveness":{"client-hangs":[{"index":1,"process":1,"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}]}}`)
	if class, _, _ := pageVerdict(t, page); class != "ok" {
		t.Fatalf("a liveness finding changed the verdict to %s", class)
	}
	l := strings.Index(page, `<section id="liveness">`)
	if l < 0 || l > strings.Index(page, `<section id="anomalies">`) {
		t.Fatal("no liveness section before the anomalies")
	}
	row := `<tr class="hang"><td class="ops"><a href="#op-1" class="oplink">1</a></td><td class="num">1</td><td>SendOffsetsToTransaction</td>
      <td class="num">9900 ms</td><td class="num">5000 ms</td><td class="num">15000 ms</td></tr>`
	if !strings.Contains(page[l:], row) {
		t.Fatalf("the hang's row is missing:\n%s", page[l:l+1500])
	}
	if !strings.Contains(page, `<details class="evop" id="op-1">`) {
		t.Fatal("the hang's op is not in the evidence list")
	}
	if !strings.Contains(page, `<a href="#liveness">1 client hang</a>`) {
		t.Fatal("the verdict does not point to the liveness finding")
	}
}

// The runs index shows the same verdict as each run's page.
func TestRunsIndexReadsTheSameVerdict(t *testing.T) {
	runs := t.TempDir()
	dir := filepath.Join(runs, "TestChaosA", "20250101T000000Z")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte(`{"valid":true,"anomaly-types":[],"guarantee-held":true,"harness-error":"final reads did not finish"}`), 0o644)
	list, err := listRuns(runs)
	if err != nil || len(list) != 1 {
		t.Fatalf("listRuns: %v %v", list, err)
	}
	if v := list[0].Verdict; v.Word != "NOT TRUSTED" || v.Green() {
		t.Fatalf("index verdict %+v for a run with a harness error", v)
	}
}

// heldWithDuplicates is results.json of a run that held at-least-once, as
// the runner writes it: a retrying producer without idempotence and a
// consumer that commits after processing, whose duplicates both hops allow.
func heldWithDuplicates(t *testing.T) string {
	t.Helper()
	exp, err := model.Expected(
		model.ProducerConfig{Acks: model.AcksAll, Retries: 3, MaxInFlight: 1},
		model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing})
	if err != nil {
		t.Fatal(err)
	}
	res := checkers.Result{AnomalyTypes: []checkers.Anomaly{checkers.Duplicate, checkers.DuplicateDelivery},
		Anomalies: map[checkers.Anomaly][]checkers.Case{
			checkers.Duplicate:         {{Ops: []int64{0}, Explanation: "value 1 at offsets 0 and 1"}},
			checkers.DuplicateDelivery: {{Ops: []int64{0}, Explanation: "offset 0 processed twice"}}},
		Counts: map[checkers.Anomaly]int64{checkers.Duplicate: 12, checkers.DuplicateDelivery: 3}}
	obs := model.Observe(res)
	if !exp.HeldBy(obs) {
		t.Fatal("the model does not hold this run: the fixture is wrong")
	}
	b, err := json.Marshal(map[string]any{"valid": false, "anomaly-types": res.AnomalyTypes, "anomalies": res.Anomalies,
		"counts": res.Counts, "expected-guarantee": exp.EndToEnd, "observed-guarantee": obs.EndToEnd,
		"guarantee-held": true, "expected": exp, "observed": obs, "reasons": exp.Reasons()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run that held the guarantee its configuration promises is not painted
// as a failure: it is HELD in amber, with its anomaly counts and, for each
// hop that showed them, why that hop allows them.
func TestHeldRunWithAllowedAnomaliesIsAmber(t *testing.T) {
	page := renderResults(t, heldWithDuplicates(t))
	class, valid, word := pageVerdict(t, page)
	if class != "allowed" || valid != "false" || word != "HELD" {
		t.Fatalf("verdict = %s / data-valid %s / %s, want allowed / false / HELD", class, valid, word)
	}
	for _, want := range []string{
		`<a href="#a-duplicate">duplicate</a> ×12`, `<a href="#a-duplicate-delivery">duplicate-delivery</a> ×3`,
		`allowed by the <b>producer hop</b> (expected at-least-once, observed at-least-once): `,
		`retries&gt;0 without idempotence: a write whose response was lost is sent again and lands twice (may duplicate)`,
		`allowed by the <b>consumer hop</b> (expected at-least-once, observed at-least-once): `,
		`commit after processing: a crash after processing and before the commit redelivers those records (may duplicate, no loss)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the verdict lacks %q", want)
		}
	}
	if strings.Contains(page, "<title>✘") || strings.Contains(page, "<title>✔") {
		t.Error("the title marks a held run with anomalies as failed or as clean")
	}
}

// The runs index paints a run as its page does.
func TestRunsIndexShowsAHeldRunWithAnomaliesInAmber(t *testing.T) {
	runs := t.TempDir()
	dir := filepath.Join(runs, "TestChaosA", "20250101T000000Z")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte(heldWithDuplicates(t)), 0o644)
	list, err := listRuns(runs)
	if err != nil || len(list) != 1 {
		t.Fatalf("listRuns: %v %v", list, err)
	}
	if v := list[0].Verdict; v.Word != "HELD" || v.Class != "allowed" {
		t.Fatalf("index verdict %+v for a held run with allowed anomalies, want HELD / allowed", v)
	}
}

// Ordering anomalies change no hop's delivery: a held run that has only
// them is amber, and says they are findings no hop allows.
func TestHeldRunWithOrderingAnomaliesNamesThem(t *testing.T) {
	page := renderResults(t, `{"valid":false,"anomaly-types":["poll-skip"],"anomalies":{"poll-skip":[{"ops":[0],"explanation":"x"}]},
		"expected-guarantee":"exactly-once","observed-guarantee":"exactly-once","guarantee-held":true,
		"expected":{"producer":{"guarantee":"exactly-once","reasons":["r"]},"consumer":{"guarantee":"exactly-once","reasons":["r"]}},
		"observed":{"producer":"exactly-once","consumer":"exactly-once","end-to-end":"exactly-once","order-only":["poll-skip"]}}`)
	if class, _, word := pageVerdict(t, page); class != "allowed" || word != "HELD" {
		t.Fatalf("verdict %s %s, want allowed HELD", class, word)
	}
	i := strings.Index(page, `id="order-only"`)
	if i < 0 || !strings.Contains(page[i:i+300], `<a href="#a-poll-skip">poll-skip</a>`) {
		t.Fatal("the verdict does not name the ordering anomaly")
	}
	if strings.Contains(page, "allowed by the") {
		t.Fatal("a hop that showed nothing is said to allow the anomaly")
	}
}
