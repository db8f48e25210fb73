package matrix_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/matrix"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// only is the rows or columns of all whose ids are named, in that order.
func only[T any](t *testing.T, all []T, id func(T) string, ids ...string) []T {
	t.Helper()
	var out []T
	for _, want := range ids {
		n := len(out)
		for _, it := range all {
			if id(it) == want {
				out = append(out, it)
			}
		}
		if len(out) == n {
			t.Fatalf("no row or column %q", want)
		}
	}
	return out
}

func rows(t *testing.T, ids ...string) []matrix.Row {
	return only(t, matrix.Rows("embedded"), func(r matrix.Row) string { return r.ID }, ids...)
}

func columns(t *testing.T, ids ...string) []matrix.Column {
	return only(t, matrix.Columns("embedded"), func(c matrix.Column) string { return c.ID }, ids...)
}

// misjudge is runner.Run, except that acks=0's runs are reported as having
// lost and duplicated (observed none, not held): a finding made on purpose,
// after a real run whose directory the matrix links.
func misjudge(ctx context.Context, s generators.Scenario, opts runner.Options) (runner.Outcome, error) {
	out, err := runner.Run(ctx, s, opts)
	if err == nil && strings.HasPrefix(s.Name, "matrix-acks-0-") {
		out.Held = false
		out.Observed.Producer, out.Observed.EndToEnd = model.None, model.None
	}
	return out, err
}

// A 2x2 matrix on the embedded cluster: acks=0 and a retrying producer
// without idempotence, under lost acks (run) and network partitions (n/a:
// the embedded cluster has none).
func TestMatrixWritesFindingsFirstAndNA(t *testing.T) {
	out := t.TempDir()
	m, err := matrix.Run(context.Background(), matrix.Options{Cluster: "embedded", Out: out, TimeLimit: 1500 * time.Millisecond,
		Rows: rows(t, "acks-0", "retries-no-idempotence"), Columns: columns(t, generators.KindLostAck, generators.KindPartition),
		Run: misjudge})
	if err != nil {
		t.Fatal(err)
	}
	if err := matrix.Write(out, m); err != nil {
		t.Fatal(err)
	}
	if f := m.Findings(); len(f) != 1 || f[0] != (matrix.FindingAt{Row: 0, Col: 0}) {
		t.Fatalf("findings %v, want only acks=0 x lost acks", f)
	}
	if ran, na, harness := m.Counts(); ran != 2 || na != 2 || harness != 0 {
		t.Errorf("cells run %d, n/a %d, harness errors %d; want 2, 2, 0: %+v", ran, na, harness, m.Cells)
	}
	b, err := os.ReadFile(filepath.Join(out, matrix.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	t.Log(md)
	findings, table := strings.Index(md, "## Findings"), strings.Index(md, "## Matrix")
	finding := strings.Index(md, "- **acks=0 × lost acks**: predicted producer at-most-once, observed none")
	if findings < 0 || table < 0 || finding < findings || finding > table {
		t.Errorf("the finding is not listed under Findings, above the table")
	}
	if !strings.Contains(md, "| configuration | hop | predicted | lost acks | partition (one broker) |") {
		t.Error("the table header does not name the columns")
	}
	for i, r := range m.Rows {
		obs, _ := m.Cells[i][0].Observed(r.Hop)
		line := rowLine(t, md, r.Name)
		want := fmt.Sprintf("observed %s, predicted %s", obs, r.Predicted())
		if !strings.Contains(line, want) || !strings.Contains(line, "| "+r.Predicted().String()+" |") {
			t.Errorf("row %s: %q does not say %q", r.Name, line, want)
		}
		if !regexp.MustCompile(`\| n/a \[\d\] \|$`).MatchString(line) {
			t.Errorf("row %s: the partition cell is not n/a with a reason: %q", r.Name, line)
		}
	}
	if !regexp.MustCompile(`\n1\. the embedded cluster does not inject partition`).MatchString(md) {
		t.Error("the n/a reason is not listed")
	}
	if want := "retries, no idempotence | producer | at-least-once"; !strings.Contains(md, want) {
		t.Errorf("the model's prediction for retries without idempotence is not shown (%q)", want)
	}
	links := regexp.MustCompile(`\]\((runs/[^)]+)\)`).FindAllStringSubmatch(md, -1)
	if len(links) != 3 { // the finding's and each run cell's
		t.Errorf("%d run links, want 3", len(links))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(out, l[1])); err != nil {
			t.Errorf("link %s: %v", l[1], err)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, matrix.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	selfContained(t, string(html))
	if !strings.Contains(string(html), `data-status="finding"`) || !strings.Contains(string(html), `data-findings="1"`) {
		t.Error("matrix.html does not show the finding")
	}
}

// rowLine is the table line of the row called name.
func rowLine(t *testing.T, md, name string) string {
	t.Helper()
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| "+name+" |") {
			return l
		}
	}
	t.Fatalf("no table line for row %s", name)
	return ""
}

// selfContained fails a page that would fetch anything: every style is
// inline and every link is relative.
func selfContained(t *testing.T, page string) {
	t.Helper()
	if m := regexp.MustCompile(`(?i)https?://|<link|<script[^>]*src=|<img`).FindString(page); m != "" {
		t.Errorf("matrix.html refers outside itself: %q", m)
	}
}

// Cells that cannot apply are not run, and say why: a row the cluster
// cannot show, a fault the workload gives nothing to act on.
func TestMatrixNACellsAreNotRun(t *testing.T) {
	ran := 0
	count := func(ctx context.Context, s generators.Scenario, o runner.Options) (runner.Outcome, error) {
		ran++
		return runner.Outcome{}, fmt.Errorf("%s was run", s.Name)
	}
	m, err := matrix.Run(context.Background(), matrix.Options{Cluster: "embedded", Out: t.TempDir(),
		Rows: rows(t, "unclean-election", "transactions"), Columns: columns(t, generators.KindCrashConsumer), Run: count})
	if err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Errorf("%d n/a cells were run", ran)
	}
	for i, want := range []string{"no out-of-sync replica", "crash-consumer acts on a consumer, and the workload has none"} {
		if c := m.Cells[i][0]; !strings.Contains(c.NA, want) {
			t.Errorf("%s x %s: n/a %q, want it to say %q", c.Row, c.Column, c.NA, want)
		}
	}
	if len(m.Findings()) != 0 {
		t.Errorf("n/a cells made findings: %v", m.Findings())
	}
}

func TestMatrixRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		o    matrix.Options
		want string
	}{
		{matrix.Options{Cluster: "embedded"}, "Options.Out is empty"},
		{matrix.Options{Cluster: "nosuch", Out: t.TempDir()}, `cluster provider "nosuch" is not registered`},
		{matrix.Options{Cluster: "embedded", Out: t.TempDir(), Rows: []matrix.Row{}}, "0 rows and 9 columns"},
	} {
		if _, err := matrix.Run(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.o, err, tc.want)
		}
	}
}

// The proxy columns apply to every row the embedded cluster can show: each
// cell's scenario routes the clients through the proxies, and the hold is
// a sixth of the run.
func TestMatrixProxyColumnsApplyToEveryRow(t *testing.T) {
	var seen []generators.Scenario
	keep := func(ctx context.Context, s generators.Scenario, o runner.Options) (runner.Outcome, error) {
		seen = append(seen, s)
		return runner.Outcome{}, fmt.Errorf("%s not run", s.Name)
	}
	limit := 3 * time.Second
	m, err := matrix.Run(context.Background(), matrix.Options{Cluster: "embedded", Out: t.TempDir(), TimeLimit: limit, Workers: 1,
		Rows: matrix.Rows("embedded"), Columns: columns(t, generators.KindLatency, generators.KindDelayedRequests), Run: keep})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range m.Cells {
		for _, c := range row {
			if (c.NA != "") != (m.Rows[i].NA != "") {
				t.Errorf("%s x %s: n/a %q", c.Row, c.Column, c.NA)
			}
		}
	}
	if want := 2 * (len(m.Rows) - 1); len(seen) != want {
		t.Fatalf("%d cells run, want %d", len(seen), want)
	}
	for _, s := range seen {
		f := s.Nemesis[0]
		if !s.Proxied() || s.Validate() != nil {
			t.Errorf("%s: proxied %v, %v", s.Name, s.Proxied(), s.Validate())
		}
		if f.Kind == generators.KindDelayedRequests && f.Params.Delay.D() != limit/6 {
			t.Errorf("%s: holds %v, want %v", s.Name, f.Params.Delay, limit/6)
		}
	}
}

// A cell whose run never came back after its heal is NOT LIVE on both
// pages and listed apart from the findings; a live cell is not; both say
// their liveness figures.
func TestMatrixMarksCellsNotLive(t *testing.T) {
	dead := func(ctx context.Context, s generators.Scenario, o runner.Options) (runner.Outcome, error) {
		out := runner.Outcome{Held: true, Observed: model.Observation{Producer: model.ExactlyOnce, Consumer: model.ExactlyOnce, EndToEnd: model.ExactlyOnce}}
		rec := int64(30e6)
		send := checkers.KindLiveness{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 2e9}, RecoveryNs: &rec}
		out.Result.Liveness = &checkers.Liveness{Live: true, Kinds: []checkers.KindLiveness{send}}
		if strings.HasSuffix(s.Name, "-kill") {
			send.RecoveryNs, send.NeverRecovered = nil, true
			out.Result.Liveness = &checkers.Liveness{Live: false, Kinds: []checkers.KindLiveness{send}}
		}
		return out, nil
	}
	out := t.TempDir()
	m, err := matrix.Run(context.Background(), matrix.Options{Cluster: "embedded", Out: out, TimeLimit: time.Second,
		Rows: rows(t, "retries-idempotence"), Columns: columns(t, generators.KindLostAck, generators.KindKill), Run: dead})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.NotLive(); len(got) != 1 || got[0] != (matrix.FindingAt{Row: 0, Col: 1}) || len(m.Findings()) != 0 {
		t.Fatalf("not live %v, findings %v; want only the kill cell not live", got, m.Findings())
	}
	if err := matrix.Write(out, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, matrix.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	line := rowLine(t, md, "retries + idempotence")
	for _, want := range []string{"live, send outage 2s, recovery 30ms, stalls 0, worst lag -",
		"held **NOT LIVE**: observed exactly-once", "NOT LIVE, send outage 2s, recovery never"} {
		if !strings.Contains(line, want) {
			t.Errorf("the row does not say %q: %s", want, line)
		}
	}
	if strings.Count(line, "NOT LIVE") != 2 { // the kill cell's mark and headline
		t.Errorf("the lost-ack cell is marked NOT LIVE too: %s", line)
	}
	if !strings.Contains(md, "## Not live") || !strings.Contains(md, "- **retries + idempotence × kill (one broker)**") || !strings.Contains(md, "0 finding(s), 1 not live") {
		t.Errorf("the not-live cell is not listed apart:\n%s", md)
	}
	page, err := os.ReadFile(filepath.Join(out, matrix.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `data-not-live="1"`) || !strings.Contains(string(page), `class="verdict bad"`) {
		t.Error("matrix.html does not show the not-live cell in its verdict")
	}
}
