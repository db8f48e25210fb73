// Package browsertest opens the harness's HTML pages (a run's index.html, the
// semantics matrix) in a real headless chromium, for tests that must see what
// a person's browser renders. It knows nothing of what the pages contain.
//
// Every page is opened offline: host names do not resolve, so a page that
// fetched anything from the network would render without it. On a machine
// without chromium the test skips saying how to install it; under CI=true it
// fails instead.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Chromium returns the path of Debian's chromium (or another Chromium build
// on PATH), skipping the test when there is none, or failing it under CI=true.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const install = `sudo env "PATH=$PATH" make setup (or apt-get install -y chromium)`
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found on PATH; CI's set-up installs it: " + install)
	}
	t.Skip("chromium not found on PATH, so the browser test cannot run; install it: " + install)
	return ""
}

// timeout bounds one chromium run; a page that hangs the browser fails.
const timeout = 2 * time.Minute

// Headless runs chromium headless and offline on the file page with the extra
// flags (--dump-dom, --screenshot=FILE, ...) and returns its stdout and how
// long it took. Scripts run until a 5 s virtual time budget is spent.
func Headless(t testing.TB, bin, page string, extra ...string) (string, time.Duration) {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars",
		"--virtual-time-budget=5000"}, extra...)
	args = append(args, "file://"+page)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out), time.Since(start)
}
