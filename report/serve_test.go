package report

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandlerIndexNewestFirstAndWritesReports(t *testing.T) {
	runs := t.TempDir()
	older := filepath.Join(runs, "TestChaosA", "20250101T000000Z")
	newer := filepath.Join(runs, "TestChaosB", "20250102T000000Z")
	for _, d := range []string{older, newer} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	synth(t, older, 200, 1)
	synth(t, newer, 200, 2)
	writeJSON(t, filepath.Join(newer, ResultsFile), map[string]any{"valid": true, "anomaly-types": []string{}})

	srv := httptest.NewServer(Handler(runs, Options{}))
	defer srv.Close()
	body := get(t, srv.URL+"/")
	iNew, iOld := strings.Index(body, "TestChaosB/20250102T000000Z"), strings.Index(body, "TestChaosA/20250101T000000Z")
	if iNew < 0 || iOld < 0 || iNew > iOld {
		t.Fatalf("index does not list both runs newest first:\n%s", body)
	}
	if !strings.Contains(body, `class="ok">VALID`) || !strings.Contains(body, `class="bad">INVALID`) {
		t.Errorf("index lacks a verdict per run:\n%s", body)
	}
	page := get(t, srv.URL+"/TestChaosA/20250101T000000Z/")
	if !strings.Contains(page, `data-valid="false"`) {
		t.Errorf("run page is not the report")
	}
	if _, err := os.Stat(filepath.Join(older, IndexFile)); err != nil {
		t.Errorf("serving did not write index.html: %v", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
