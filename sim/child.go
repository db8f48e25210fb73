package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"
	_ "unsafe" // go:linkname of kfakeRandPoolAt

	"github.com/kafkachaos/kafkachaos/generators"
)

// ChildEnv, set in a child process's environment, makes its ChildTest
// play the draws its parent's Player sends it.
const ChildEnv = "KAFKACHAOS_SIM_CHILD"

// ChildTest is the name of the test a binary that can play draws runs
// Child from.
const ChildTest = "TestSimChild"

// replyFD is the child's file descriptor, after its standard three, on
// which it answers each draw: apart from stdout and stderr, which the
// testing package and the clients' logs also write to.
const replyFD = 3

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

// Child plays the draws its parent sends, one after another: each line of
// its standard input is a draw's directory, holding scenario.json; it
// plays the draw in a synctest bubble of its own, with every random source
// of the process seeded by the scenario's seed, writes history.jsonl,
// events.txt and played.json there, and then answers a line on replyFD: a
// JSON string, empty when the draw was played, else why it could not be.
// Outside a child process (ChildEnv unset) it skips t. A test binary that
// a Player runs has a test named ChildTest that calls it.
func Child(t *testing.T) {
	if os.Getenv(ChildEnv) == "" {
		t.Skip("not a simulation child process")
	}
	replies := os.NewFile(replyFD, "replies")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		why := ""
		if err := childDraw(t, in.Text()); err != nil {
			why = err.Error()
		}
		b, err := json.Marshal(why)
		if err == nil {
			_, err = replies.Write(append(b, '\n'))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Err(); err != nil {
		t.Fatal(err)
	}
}

// childDraw plays the draw of dir in a subtest, whose end restores the
// process's random sources.
func childDraw(t *testing.T, dir string) error {
	s, err := generators.Load(filepath.Join(dir, generators.FileName))
	if err != nil {
		return err
	}
	var p Played
	var perr error
	if !t.Run(s.Name, func(t *testing.T) {
		cryptotest.SetGlobalRandom(t, uint64(s.Seed))
		mathrand.Seed(s.Seed) //nolint:staticcheck // kfake draws from the global source; GODEBUG=randseednop=0 makes this seed it
		kfakeRandPoolAt = kfakeRandPoolEmpty
		var ops atomic.Int64
		stop := watch(dir, &ops)
		defer stop()
		synctest.Test(t, func(*testing.T) { p, perr = play1(s, &ops, nil) })
	}) {
		return fmt.Errorf("sim: draw %s: its subtest failed", s.Name)
	}
	out := played{Virtual: p.Virtual, FaultsFired: p.FaultsFired}
	if perr != nil {
		out.Error = perr.Error()
	}
	return writeDraw(dir, p, out)
}

// kfakeRandPoolAt is where kfake's process-wide buffer of random bytes
// (topic ids, member ids) is read next: it is filled from crypto/rand, as
// the draw's seed makes it, only once read to its end. A draw of a child
// that played one before would read on where that one stopped; setting it
// to kfakeRandPoolEmpty makes it refill from the draw's own seed, as in a
// fresh process.
//
//go:linkname kfakeRandPoolAt github.com/twmb/franz-go/pkg/kfake.randPoolAt
var kfakeRandPoolAt int

// kfakeRandPoolEmpty is kfake's buffer read to its end: its size.
const kfakeRandPoolEmpty = 4 << 10

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

// childTimeout bounds one draw in wall time: a draw takes milliseconds,
// so one still running after this has hung.
const childTimeout = 10 * time.Second

// Player plays draws in child processes of a test binary with ChildTest,
// each child one draw after another: a draw costs no process start. A
// child that does not answer a draw (it hung or ended) is ended, never
// sent another. Children end when their standard input closes: on Close,
// or when this process ends.
type Player struct {
	bin  string
	mu   sync.Mutex
	idle []*child
}

// NewPlayer plays draws in child processes of bin.
func NewPlayer(bin string) *Player { return &Player{bin: bin} }

// child is a running child process of a Player.
type child struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies *bufio.Reader
	// log is the child's stdout and stderr, an unlinked file: the child
	// writes it directly, with no copying goroutine to wait for; logAt is
	// where the output of its current draw starts.
	log   *os.File
	logAt int64
}

// Play plays s in a child process, in dir, which it creates, and returns
// what the child recorded.
func (pl *Player) Play(ctx context.Context, dir string, s generators.Scenario) (Played, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Played{}, err
	}
	if err := generators.Save(filepath.Join(dir, generators.FileName), s); err != nil {
		return Played{}, err
	}
	c, err := pl.take()
	if err != nil {
		return Played{}, err
	}
	why, err := c.play(ctx, dir)
	if err != nil {
		out, werr := c.end()
		if p, rerr := readDraw(dir); errors.Is(rerr, Stalled) {
			return p, rerr // the watcher ended the child, as it does
		}
		return Played{}, fmt.Errorf("sim: draw %s: %w\n%s", s.Name, errors.Join(err, werr), out)
	}
	pl.put(c)
	if why != "" {
		return Played{}, fmt.Errorf("sim: draw %s: %s", s.Name, why)
	}
	return readDraw(dir)
}

// Close ends the children not playing a draw.
func (pl *Player) Close() error {
	pl.mu.Lock()
	idle := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	var errs []error
	for _, c := range idle {
		errs = append(errs, c.close())
	}
	return errors.Join(errs...)
}

// take is an idle child, or a new one.
func (pl *Player) take() (*child, error) {
	pl.mu.Lock()
	if n := len(pl.idle); n > 0 {
		c := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		pl.mu.Unlock()
		return c, nil
	}
	pl.mu.Unlock()
	return startChild(pl.bin)
}

func (pl *Player) put(c *child) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.idle = append(pl.idle, c)
}

func startChild(bin string) (*child, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close() // the child's copy stays open: the parent's would hide the child's end
	cmd := exec.Command(bin, "-test.run=^"+ChildTest+"$", "-test.count=1")
	// One thread: the child's scheduling is as repeatable as the
	// runtime allows, and parallel draws each get a core. A draw
	// allocates about 7 MB and keeps little of it: letting the heap grow
	// to 5 times what is live before collecting, instead of twice, takes
	// about a tenth off a draw's CPU for tens of MB.
	cmd.Env = append(os.Environ(), ChildEnv+"=1", "GOMAXPROCS=1", "GODEBUG=randseednop=0", "GOGC=400")
	cmd.ExtraFiles = []*os.File{w} // replyFD
	log, err := os.CreateTemp("", "kafkachaos-sim-child-*.log")
	if err == nil {
		err = os.Remove(log.Name())
		cmd.Stdout, cmd.Stderr = log, log
	}
	var in io.WriteCloser
	if err == nil {
		in, err = cmd.StdinPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		r.Close()
		if log != nil {
			log.Close()
		}
		return nil, fmt.Errorf("sim: starting a draw player: %w", err)
	}
	return &child{cmd: cmd, in: in, replies: bufio.NewReader(r), log: log}, nil
}

// play sends the child the draw of dir and waits for its answer, for
// childTimeout at most.
func (c *child) play(ctx context.Context, dir string) (string, error) {
	if fi, err := c.log.Stat(); err == nil {
		c.logAt = fi.Size()
	}
	if _, err := io.WriteString(c.in, dir+"\n"); err != nil {
		return "", err
	}
	type reply struct {
		line []byte
		err  error
	}
	got := make(chan reply, 1)
	go func() {
		line, err := c.replies.ReadBytes('\n')
		got <- reply{line, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, childTimeout)
	defer cancel()
	var r reply
	select {
	case r = <-got:
	case <-ctx.Done():
		c.cmd.Process.Kill() //nolint:errcheck // it may have ended already; end waits for it either way
		<-got
		return "", ctx.Err()
	}
	if r.err != nil {
		return "", fmt.Errorf("the draw player ended: %w", r.err)
	}
	var why string
	if err := json.Unmarshal(r.line, &why); err != nil {
		return "", fmt.Errorf("the draw player's answer %q: %w", r.line, err)
	}
	return why, nil
}

// end kills the child, waits for it and returns what it wrote since its
// current draw began.
func (c *child) end() (string, error) {
	c.in.Close()
	c.cmd.Process.Kill() //nolint:errcheck // it may have ended already
	err := c.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil // killed, or ended by the watcher: the draw's error says which
	}
	out := c.output()
	return out, errors.Join(err, c.log.Close())
}

// close ends an idle child: its loop ends with its input.
func (c *child) close() error {
	err := errors.Join(c.in.Close(), c.cmd.Wait())
	return errors.Join(err, c.log.Close())
}

// output is what the child wrote since its current draw began.
func (c *child) output() string {
	fi, err := c.log.Stat()
	if err != nil {
		return err.Error()
	}
	b, err := io.ReadAll(io.NewSectionReader(c.log, c.logAt, fi.Size()-c.logAt))
	if err != nil {
		return err.Error()
	}
	return string(b)
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
