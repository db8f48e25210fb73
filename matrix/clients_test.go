package matrix_test

import (
	"context"
	"os"
	"os/exec"
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

// javaLosesUnderKill is a fake run: every cell held exactly-once, except
// the Java producer's under a kill, which lost writes and hung a call;
// the Java client's commit-before cells find the fault uninjectable.
func javaLosesUnderKill(_ context.Context, s generators.Scenario, _ runner.Options) (runner.Outcome, error) {
	if s.Name == "matrix-commit-before-kill-java" || s.Name == "matrix-commit-before-lost-ack-java" {
		return runner.Outcome{}, &runner.UnsupportedFault{Kind: s.Nemesis[0].Kind, Capability: "test", Provider: "embedded"}
	}
	g := model.ExactlyOnce
	out := runner.Outcome{Held: true}
	out.Stats.FaultsFired = 1
	if s.Name == "matrix-retries-idempotence-kill-java" {
		g = model.AtMostOnce
		out.Result.Counts = map[checkers.Anomaly]int64{checkers.LostWrite: 4}
		out.Result.Liveness = &checkers.Liveness{Live: true, ClientHangs: []checkers.ClientHang{{Index: 7}}}
	}
	out.Observed = model.Observation{Producer: g, Consumer: model.ExactlyOnce, EndToEnd: g}
	return out, nil
}

// CLIENTS.md lists first the cells where a client was weaker than the model
// predicts or than another client, naming both and the anomaly; a row
// where the clients agree says "no difference", one with a single client
// judged says it was not compared, beside the other's n/a reason.
func TestClientsMarkdown(t *testing.T) {
	out := t.TempDir()
	clients := []matrix.Client{{Name: generators.ClientLibrdkafka}, {Name: generators.ClientJava}}
	d, err := matrix.RunClients(context.Background(), matrix.Options{Cluster: "embedded", Out: out, TimeLimit: time.Second,
		Rows: rows(t, "retries-idempotence", "commit-before"), Columns: columns(t, generators.KindKill, generators.KindLostAck),
		Run: javaLosesUnderKill}, clients)
	if err != nil {
		t.Fatal(err)
	}
	diffs := d.Differences()
	if len(diffs) != 1 || diffs[0].Weaker != 1 || diffs[0].Than != 0 || diffs[0].Row != 0 || diffs[0].Col != 0 || diffs[0].Allowed {
		t.Fatalf("differences %+v, want java weaker than librdkafka in the idempotent row under kill only", diffs)
	}
	if f := d.Findings(); len(f) != 1 || f[0].Client != 1 {
		t.Fatalf("findings %+v, want java's kill cell alone", f)
	}
	if err := matrix.WriteClients(out, d); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, matrix.ClientsMarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	t.Log(md)
	findings, table := strings.Index(md, "## Findings"), strings.Index(md, "## Clients")
	for _, want := range []string{
		"- **retries + idempotence × kill (one broker), java**: predicted producer exactly-once, observed at-most-once",
		"- **retries + idempotence × kill (one broker)**: java weaker than librdkafka: producer observed at-most-once against exactly-once; lost-write 4; 1 client hang(s)",
	} {
		if at := strings.Index(md, want); at < findings || at > table {
			t.Errorf("not listed under Findings, above the table: %q", want)
		}
	}
	for _, want := range []string{
		"| configuration | fault | predicted | librdkafka | java | difference |",
		"| retries + idempotence | lost acks | producer exactly-once | held: observed exactly-once, predicted exactly-once; 1/1 held; no anomaly;",
		"| commit before processing | kill (one broker) | consumer at-most-once | held: observed exactly-once",
		"| n/a [1] | not compared: 1 client(s) judged |",
		"## Not applicable\n\n1. ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("CLIENTS.md does not say %q", want)
		}
	}
	if n := strings.Count(md, "| no difference |"); n != 1 {
		t.Errorf("%d rows say no difference, want 1 (the idempotent producer under lost acks)", n)
	}
	page, err := os.ReadFile(filepath.Join(out, matrix.ClientsHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	selfContained(t, string(page))
	if !strings.Contains(string(page), `data-findings="2"`) || !strings.Contains(string(page), `data-differs="true"`) {
		t.Error("clients.html does not show the two findings")
	}
}

// The differential on the embedded cluster, for real: the same cells
// through every client (the Java one when a JDK and Maven are here), each
// judged, and every run link in CLIENTS.md a run directory beside it.
func TestClientsEmbedded(t *testing.T) {
	var clients []matrix.Client
	for _, c := range matrix.DefaultClients() {
		if c.Name != generators.ClientJava || jdk() {
			clients = append(clients, c)
		}
	}
	out := t.TempDir()
	d, err := matrix.RunClients(context.Background(), matrix.Options{Cluster: "embedded", Out: out, TimeLimit: 1500 * time.Millisecond,
		Rows: rows(t, "acks-1", "commit-before"), Columns: columns(t, generators.KindLostAck)}, clients)
	if err != nil {
		t.Fatal(err)
	}
	if err := matrix.WriteClients(out, d); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for k, m := range d.Matrices {
		for i, r := range m.Rows {
			c := m.Cells[i][0]
			_, judged := c.Observed(r.Hop)
			if judged {
				ran++
			}
			if !judged || c.NA != "" {
				t.Errorf("%s x %s: judged %v, n/a %q; want it judged: every client runs every role", d.Clients[k], r.ID, judged, c.NA)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, matrix.ClientsMarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\((runs/[^)]+/)\)`).FindAllStringSubmatch(string(md), -1)
	if len(links) < ran {
		t.Errorf("%d run links in CLIENTS.md for %d cells run", len(links), ran)
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(out, l[1], "results.json")); err != nil {
			t.Errorf("link %s: %v", l[1], err)
		}
	}
}

// jdk reports whether the Java client can be built here.
func jdk() bool {
	for _, c := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(c); err != nil {
			return false
		}
	}
	return true
}
