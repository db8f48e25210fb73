package matrix_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/browsertest"
	"github.com/kafkachaos/kafkachaos/matrix"
	"github.com/kafkachaos/kafkachaos/model"
)

// written is a matrix of one finding, one held cell and one n/a cell,
// written to a temp dir, with the run directory its finding links to.
func written(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := filepath.Join(dir, matrix.RunsDir, "matrix-acks-0-lost-ack", "t0")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "index.html"), []byte("<!DOCTYPE html><title>run</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	exp, err := model.Expected(model.ProducerConfig{Acks: model.AcksNone}, model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing})
	if err != nil {
		t.Fatal(err)
	}
	none := model.Observation{Producer: model.None, EndToEnd: model.None}
	exactly := model.Observation{Producer: model.ExactlyOnce, Consumer: model.ExactlyOnce, EndToEnd: model.ExactlyOnce}
	m := matrix.Matrix{Cluster: "embedded", Runs: 1, TimeLimit: 3 * time.Second,
		Rows:    []matrix.RowInfo{{ID: "acks-0", Name: "acks=0", Hop: matrix.HopProducer, Expected: exp}},
		Columns: []matrix.ColumnInfo{{ID: "lost-ack", Name: "lost acks"}, {ID: "kill", Name: "kill"}, {ID: "partition", Name: "partition"}},
		Cells: [][]matrix.Cell{{
			{Row: "acks-0", Column: "lost-ack", Runs: []matrix.RunResult{{Dir: "runs/matrix-acks-0-lost-ack/t0", Judged: true, Observed: none,
				Counts: map[string]int64{"duplicate": 2, "lost-write": 1}}}},
			{Row: "acks-0", Column: "kill", Runs: []matrix.RunResult{{Judged: true, Held: true, Observed: exactly}}},
			{Row: "acks-0", Column: "partition", NA: "the embedded cluster does not inject partition"},
		}}}
	if err := matrix.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBrowserOpensMatrixOffline opens matrix.html in headless chromium with
// every host name unresolvable: the page must render its verdict and every
// cell from the file alone.
func TestBrowserOpensMatrixOffline(t *testing.T) {
	bin := browsertest.Chromium(t)
	dir := written(t)
	page := filepath.Join(dir, matrix.HTMLFile)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	selfContained(t, string(b))
	dom, _ := browsertest.Headless(t, bin, page, "--dump-dom")
	for _, want := range []string{`data-findings="1"`, "1 FINDING(S)", `data-status="finding"`, `data-status="held"`,
		`data-status="na"`, "the embedded cluster does not inject partition", `href="runs/matrix-acks-0-lost-ack/t0/index.html"`,
		"duplicate 2, lost-write 1"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	if n := strings.Count(dom, "data-status="); n != 3 {
		t.Errorf("%d cells rendered, want 3", n)
	}
	shot := filepath.Join(t.ArtifactDir(), "matrix.png")
	browsertest.Headless(t, bin, page, "--window-size=1280,900", "--screenshot="+shot)
	t.Logf("screenshot: %s", shot)
}
