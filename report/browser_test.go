package report

import (
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/browsertest"
)

func TestBrowserShowsVerdictAndAnomalies(t *testing.T) {
	bin := browsertest.Chromium(t)
	dir := copyRun(t, "testdata/anomalies")
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, IndexFile)
	dom, _ := browsertest.Headless(t, bin, page, "--dump-dom")

	if !regexp.MustCompile(`id="verdict"[^>]*data-valid="false"`).MatchString(dom) || !strings.Contains(dom, ">INVALID<") {
		t.Error("rendered page does not show the INVALID verdict")
	}
	var res runResults
	b, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Anomalies) == 0 {
		t.Fatal("testdata has no anomalies to look for")
	}
	for a, cases := range res.Anomalies {
		if !strings.Contains(dom, fmt.Sprintf(`data-anomaly="%s"`, a)) {
			t.Errorf("anomaly %s is not shown", a)
		}
		for _, c := range cases {
			for _, op := range c.Ops {
				if !strings.Contains(dom, fmt.Sprintf(`href="#op-%d"`, op)) || !strings.Contains(dom, fmt.Sprintf(`id="op-%d"`, op)) {
					t.Errorf("anomaly %s: op %d has no link or anchor", a, op)
				}
			}
		}
	}
	// The timeline is drawn by script: its status names how many ops it drew.
	m := regexp.MustCompile(`id="tl-status"[^>]*data-rendered="(\d+)"`).FindStringSubmatch(dom)
	if m == nil || m[1] == "0" {
		t.Errorf("timeline script did not run (status %v)", m)
	}

	shot := filepath.Join(t.ArtifactDir(), "report.png")
	browsertest.Headless(t, bin, page, "--window-size=1280,2600", "--screenshot="+shot)
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

// TestBrowserLoad100k measures how long headless chromium takes to load
// and draw the report of a 100k-op history.
func TestBrowserLoad100k(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 100k-op browser load is slow")
	}
	bin := browsertest.Chromium(t)
	dir := t.TempDir()
	synth(t, dir, 100_000, 3)
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	dom, wall := browsertest.Headless(t, bin, filepath.Join(dir, IndexFile), "--dump-dom")
	m := regexp.MustCompile(`data-load-ms="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("timeline never finished its first draw")
	}
	ms, _ := strconv.Atoi(m[1])
	t.Logf("100k ops: page %.1f MB, first timeline draw at %d ms after navigation start, chromium wall %v", float64(st.Size())/1e6, ms, wall.Round(time.Millisecond))
	if ms > 10_000 {
		t.Errorf("100k-op page took %d ms to draw its timeline", ms)
	}
}

// copyRun copies a committed run directory to a temp dir so writing its
// index.html leaves testdata untouched.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range []string{HistoryFile, ResultsFile, ScenarioFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A run that held with the anomalies its guarantee allows is amber in a
// real browser: the verdict's border is drawn in amber, and no red.
func TestBrowserShowsHeldRunWithAllowedAnomaliesInAmber(t *testing.T) {
	bin := browsertest.Chromium(t)
	dir := t.TempDir()
	synth(t, dir, 200, 5)
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(heldWithDuplicates(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, IndexFile)
	dom, _ := browsertest.Headless(t, bin, page, "--dump-dom")
	if !regexp.MustCompile(`id="verdict" class="verdict allowed"[^>]*data-verdict="HELD"`).MatchString(dom) ||
		!strings.Contains(dom, "allowed by the <b>producer hop</b>") {
		t.Error("rendered page does not show the amber HELD verdict with its allowing hop")
	}
	shot := filepath.Join(t.ArtifactDir(), "held-amber.png")
	browsertest.Headless(t, bin, page, "--window-size=1280,600", "--screenshot="+shot)
	amber, red := verdictBorder(t, shot)
	if amber < 400 || red > 0 {
		t.Errorf("the verdict's border has %d amber and %d red pixels, want amber only", amber, red)
	}
	t.Logf("screenshot: %s", shot)
}

// verdictBorder counts the pixels of the screenshot's left strip, where
// the verdict's 8 px border is drawn, that are the page's amber (#d97706)
// or red (#b91c1c).
func verdictBorder(t *testing.T, shot string) (amber, red int) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	near := func(c color.Color, r, g, b uint32) bool {
		cr, cg, cb, _ := c.RGBA()
		d := func(x, y uint32) bool { return max(x>>8, y)-min(x>>8, y) <= 8 }
		return d(cr, r) && d(cg, g) && d(cb, b)
	}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < min(bounds.Min.X+80, bounds.Max.X); x++ {
			switch c := img.At(x, y); {
			case near(c, 0xd9, 0x77, 0x06):
				amber++
			case near(c, 0xb9, 0x1c, 0x1c):
				red++
			}
		}
	}
	return amber, red
}
