package runner

import (
	"bytes"
	"testing"
	"time"
)

// drivenProgress is a progress printer on a fixed clock (1.5s into a 5s
// run) whose ticks the test sends: what it writes depends on nothing but
// the ticks sent and end.
func drivenProgress(out *bytes.Buffer, tty bool) (*progress, chan<- time.Time) {
	m := newMeter()
	m.ops.Store(42)
	m.errors.Store(3)
	sc := &schedule{}
	sc.active.Store(2)
	t0 := time.Unix(1000, 0)
	p := newProgress(out, tty, m, sc, t0, 5*time.Second)
	p.now = func() time.Time { return t0.Add(1549 * time.Millisecond) }
	ticks := make(chan time.Time)
	go p.loop(ticks)
	return p, ticks
}

const progressLine = "kafkachaos: 1.5s/5s  ops 42  ok 0  errors 3  crashes 0  active faults 2"

// On a terminal each tick rewrites the line in place and clears what an
// older, longer line left; end ends the line. The send on the unbuffered
// ticks returns once the loop took the tick, and the loop writes it before
// it looks at end's stop: the output is exact, with no real ticker.
func TestProgressLineAndTerminalEnd(t *testing.T) {
	var buf bytes.Buffer
	p, ticks := drivenProgress(&buf, true)
	ticks <- time.Time{}
	p.end()
	p.end() // idempotent
	want := "\r" + progressLine + "\033[K" + "\r" + progressLine + "\n"
	if got := buf.String(); got != want {
		t.Errorf("terminal progress\n got %q\nwant %q", got, want)
	}
}

// Elsewhere (a log) each tick is a whole line of its own, and end adds
// nothing: no carriage returns or escapes in a CI log.
func TestProgressLogLines(t *testing.T) {
	var buf bytes.Buffer
	p, ticks := drivenProgress(&buf, false)
	ticks <- time.Time{}
	ticks <- time.Time{}
	p.end()
	want := progressLine + "\n" + progressLine + "\n"
	if got := buf.String(); got != want {
		t.Errorf("log progress\n got %q\nwant %q", got, want)
	}
}

// Without a writer no loop runs (done is closed before startProgress
// returns), and end returns at once, however often it is called.
func TestProgressSilentWithoutWriter(t *testing.T) {
	p := startProgress(nil, true, newMeter(), &schedule{}, time.Now(), time.Second)
	select {
	case <-p.done:
	default:
		t.Fatal("a progress printer without a writer started a loop")
	}
	ended := make(chan struct{})
	go func() {
		p.end()
		p.end()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("end blocked for 5s without a writer")
	}
}
