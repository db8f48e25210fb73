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
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("page names another host")
	}
}
