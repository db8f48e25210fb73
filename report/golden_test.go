package report

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.html from the current code")

// TestPageMatchesGolden pins the whole page of a small synthetic run, so a
// change in how the page is produced (streaming, caps) cannot change what it
// says unnoticed. Only the generation time and the run directory differ
// between runs; they are blanked. The stylesheet and script are checked to
// be inlined whole, once, and stand in the golden file as a marker: the
// golden pins what Go writes, and an edit of page.css or page.js (checked
// by the browser tests) does not rewrite it.
func TestPageMatchesGolden(t *testing.T) {
	dir := t.TempDir()
	synth(t, dir, 600, 7)
	var b strings.Builder
	if err := Render(&b, dir, Options{Title: "golden"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, asset := range []struct{ name, text string }{{"page.css", pageCSS}, {"page.js", pageJS}} {
		if n := strings.Count(page, asset.text); n != 1 {
			t.Fatalf("%s is inlined %d times, want once", asset.name, n)
		}
		page = strings.Replace(page, asset.text, "/* "+asset.name+" */", 1)
	}
	got := normalizePage(page, dir)
	golden := filepath.Join("testdata", "golden.html")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s at byte %d: got %q, want %q (go test -run Golden -update rewrites it)",
			golden, firstDiff(got, string(want)), excerpt(got, firstDiff(got, string(want))), excerpt(string(want), firstDiff(got, string(want))))
	}
}

var generatedRe = regexp.MustCompile(`generated [^·<]* · `)

func normalizePage(page, dir string) string {
	page = strings.ReplaceAll(page, dir, "RUNDIR")
	return generatedRe.ReplaceAllString(page, "generated TIME · ")
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func excerpt(s string, i int) string { return s[max(0, i-80):min(len(s), i+80)] }
