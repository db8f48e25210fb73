package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLineAndTerminalEnd(t *testing.T) {
	m := newMeter()
	m.ops.Store(42)
	m.errors.Store(3)
	sc := &schedule{}
	sc.active.Store(2)
	var buf bytes.Buffer
	p := startProgress(&buf, true, m, sc, time.Now(), 5*time.Second)
	time.Sleep(600 * time.Millisecond) // one tick of the terminal line
	p.end()
	p.end() // idempotent
	out := buf.String()
	for _, want := range []string{"\r", "/5s", "ops 42", "errors 3", "active faults 2", "\033[K"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output %q lacks %q", out, want)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("terminal progress does not end its line: %q", out)
	}
}

func TestProgressSilentWithoutWriter(t *testing.T) {
	p := startProgress(nil, false, newMeter(), &schedule{}, time.Now(), time.Second)
	p.end() // must not block or panic
}
