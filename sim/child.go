package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mathrand "math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// ChildEnv names the directory a child process plays its draw in: it
// holds scenario.json, and the child writes history.jsonl, events.txt and
// played.json there.
const ChildEnv = "KAFKACHAOS_SIM_DRAW"

// ChildTest is the name of the test a binary that can play draws runs
// Child from.
const ChildTest = "TestSimChild"

// childFiles are the files of a draw's directory.
const (
	historyFile = "history.jsonl"
	eventsFile  = "events.txt"
	playedFile  = "played.json"
)

// played is played.json: what the history and events files do not say.
type played struct {
	Virtual     time.Duration `json:"virtual-ns"`
	FaultsFired int           `json:"faults-fired"`
	Error       string        `json:"error,omitempty"`
	Stalled     bool          `json:"stalled,omitempty"`
}

// Child plays the draw ChildEnv names, in a synctest bubble, with every
// random source of the process seeded by the scenario's seed; outside a
// child process (ChildEnv unset) it skips t. A test binary that Spawn runs
// has a test named ChildTest that calls it.
func Child(t *testing.T) {
	dir := os.Getenv(ChildEnv)
	if dir == "" {
		t.Skip("not a simulation child process")
	}
	s, err := generators.Load(filepath.Join(dir, generators.FileName))
	if err != nil {
		t.Fatal(err)
	}
	cryptotest.SetGlobalRandom(t, uint64(s.Seed))
	mathrand.Seed(s.Seed) //nolint:staticcheck // kfake draws from the global source; GODEBUG=randseednop=0 makes this seed it
	var p Played
	var perr error
	var ops atomic.Int64
	stop := watch(dir, &ops)
	synctest.Test(t, func(*testing.T) { p, perr = play1(s, &ops, nil) })
	stop()
	out := played{Virtual: p.Virtual, FaultsFired: p.FaultsFired}
	if perr != nil {
		out.Error = perr.Error()
	}
	if err := writeDraw(dir, p, out); err != nil {
		t.Fatal(err)
	}
}

// stallAfter is how long, in wall time, a draw may record nothing before
// it counts as stalled: a run records an op every few virtual
// milliseconds, which take microseconds of wall time.
const stallAfter = 2 * time.Second

// Stalled is the error of a draw whose bubble stopped: some goroutine
// blocked on a mutex (not durably) while the mutex's holder waited on
// virtual time, so the clock could not move. It is a limit of running
// kgo and kfake under synctest, not a verdict.
var Stalled = errors.New("sim: stalled (a goroutine of the bubble waits on a mutex whose holder waits on virtual time)")

// stallLooks is how many times per stallAfter the watcher looks at the
// ops: a stall then ends its draw within stallAfter and one look (on a
// ticker of stallAfter itself, up to twice stallAfter), and a stalled
// draw holds one of the campaign's places to judge draws all that time.
const stallLooks = 8

// watch ends the process when ops stops growing for stallAfter, after
// writing played.json saying so and the goroutines to stall.txt; the
// returned func stops watching.
func watch(dir string, ops *atomic.Int64) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(stallAfter / stallLooks)
		defer t.Stop()
		last, since := int64(-1), time.Now()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if n := ops.Load(); n != last {
				last, since = n, time.Now()
				continue
			}
			if time.Since(since) < stallAfter {
				continue
			}
			buf := make([]byte, 1<<22)
			buf = buf[:runtime.Stack(buf, true)]
			_ = os.WriteFile(filepath.Join(dir, "stall.txt"), buf, 0o644)
			_ = writeDraw(dir, Played{}, played{Error: Stalled.Error(), Stalled: true})
			os.Exit(0)
		}
	}()
	return func() { close(done) }
}

func writeDraw(dir string, p Played, out played) error {
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	var events bytes.Buffer
	for _, l := range p.Log {
		events.WriteString(l)
		events.WriteByte('\n')
	}
	return errors.Join(os.WriteFile(filepath.Join(dir, historyFile), p.History, 0o644),
		os.WriteFile(filepath.Join(dir, eventsFile), events.Bytes(), 0o644),
		os.WriteFile(filepath.Join(dir, playedFile), b, 0o644))
}

// childTimeout bounds one child process in wall time: a draw takes
// milliseconds, so one still running after this has hung.
const childTimeout = 10 * time.Second

// Spawn plays s in a child process of bin (a test binary with ChildTest),
// in dir, which it creates, and returns what the child recorded.
func Spawn(ctx context.Context, bin, dir string, s generators.Scenario) (Played, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Played{}, err
	}
	if err := generators.Save(filepath.Join(dir, generators.FileName), s); err != nil {
		return Played{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^"+ChildTest+"$", "-test.count=1")
	// One thread: the child's scheduling is as repeatable as the
	// runtime allows, and parallel draws each get a core.
	cmd.Env = append(os.Environ(), ChildEnv+"="+dir, "GOMAXPROCS=1", "GODEBUG=randseednop=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Played{}, fmt.Errorf("sim: draw %s: %w\n%s", s.Name, err, out)
	}
	return readDraw(dir)
}

// readDraw reads back what a child wrote in dir.
func readDraw(dir string) (Played, error) {
	var out played
	b, err := os.ReadFile(filepath.Join(dir, playedFile))
	if err != nil {
		return Played{}, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return Played{}, fmt.Errorf("sim: %s: %w", playedFile, err)
	}
	p := Played{Virtual: out.Virtual, FaultsFired: out.FaultsFired}
	if p.History, err = os.ReadFile(filepath.Join(dir, historyFile)); err != nil {
		return p, err
	}
	events, err := os.ReadFile(filepath.Join(dir, eventsFile))
	if err != nil {
		return p, err
	}
	for l := range bytes.Lines(events) {
		p.Log = append(p.Log, string(bytes.TrimSuffix(l, []byte("\n"))))
	}
	switch {
	case out.Stalled:
		return p, fmt.Errorf("%w; goroutines in %s", Stalled, filepath.Join(dir, "stall.txt"))
	case out.Error != "":
		return p, fmt.Errorf("sim: %s", out.Error)
	}
	return p, nil
}

// removeAll removes a draw's directory; one left behind costs only space.
func removeAll(dir string) { _ = os.RemoveAll(dir) }

// BuildChild compiles this package's tests, whose ChildTest plays draws,
// into bin, for a program that is not a test binary (kafkachaos explore):
// synctest and cryptotest run only in tests. It needs the Go toolchain
// and the module's source, where kafkachaos runs from.
func BuildChild(ctx context.Context, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "github.com/kafkachaos/kafkachaos/sim")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sim: building the draw player: %w\n%s", err, out)
	}
	return nil
}
