package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSynthetic(t *testing.T) {
	dir := t.TempDir()
	res := synth(t, dir, 2000, 1)
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`data-valid="false"`, "INVALID", `id="observed">none`, `data-anomaly="lost-write"`,
		`data-anomaly="duplicate"`, `data-anomaly="inconsistent-offsets"`, `data-anomaly="unseen"`, `id="key-0"`, `class="fault"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, cs := range res.Anomalies {
		for _, c := range cs {
			for _, op := range c.Ops {
				if !strings.Contains(page, `id="op-`+itoa(int(op))+`"`) {
					t.Errorf("evidence op %d has no anchor", op)
				}
			}
		}
	}
	if strings.Contains(page, ".index-") {
		t.Error("the page lists the temporary file it is being written to")
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("page names another host")
	}
}

func TestLinearizabilityVerdictsAndLinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "linearizable-key-3.html"), []byte("<html></html>"), 0o644)
	results := `{"valid":false,"anomaly-types":[],"anomalies":{},"linearizability":{"valid":false,"complete":false,"keys":[
		{"key":1,"outcome":"ok","ops":4},
		{"key":3,"outcome":"illegal","ops":9,"visualization":"` + filepath.Join(dir, "linearizable-key-3.html") + `"},
		{"key":4,"outcome":"unknown","ops":9000}]}}`
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte(results), 0o644)
	var b strings.Builder
	if err := Render(&b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"1 of 3 keys linearizable, 1 not, 1 undecided", "key 3: <span class=\"gbad\">not linearizable</span>",
		`href="linearizable-key-3.html"`, "key 4: unknown"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "key 1:") {
		t.Error("a linearizable key is listed instead of counted")
	}
}

// The page links every file of the run directory, with its size, and says
// what the request log is and how to read it; hidden files and the page
// itself are not listed.
func TestPageListsTheRunsFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "requests.jsonl.gz"), make([]byte, 3000), 0o644)
	os.WriteFile(filepath.Join(dir, ".index-1.tmp"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "kafka-1"), 0o755)
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<a href="requests.jsonl.gz">requests.jsonl.gz</a> <span class="muted">2.9 KiB</span>: the Kafka requests`,
		"kafkachaos requests DIR", `<a href="kafka-1/">kafka-1/</a>`, `<a href="history.jsonl">history.jsonl</a> <span class="muted">0 B</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, dont := range []string{`href="index.html"`, `href=".index-1.tmp"`} {
		if strings.Contains(page, dont) {
			t.Errorf("page lists %q", dont)
		}
	}
}
