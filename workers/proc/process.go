package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
	"github.com/kafkachaos/kafkachaos/workers"
)

// A worker process's command line carries its owner's tag
// (ownedproc.Args): Sweep finds leftovers by it. The -test.run=^$ before it
// makes a test binary that forgot ServeIfChild run no test, and exit.

// startBound bounds a worker process's start: the exec, and its clients'.
const startBound = 30 * time.Second

// child is the harness's end of one worker process.
type child struct {
	at     workers.Position
	pid    int
	cmd    *exec.Cmd
	in     *encoder
	ready  chan struct{} // closed when it has started its clients
	exited chan struct{} // closed once it is reaped and its end recorded
	// stalled takes its answers to stalls and resumes, asked one at a
	// time (askMu: stall.go) and numbered (asks)
	stalled chan stallAnswer
	askMu   sync.Mutex
	asks    int64
	// stopping ends once it is told to stop (which ends a stall it holds)
	stopping context.Context
	told     context.CancelFunc

	mu     sync.Mutex
	how    string // how it was ended, when the harness ended it
	paused bool
	seen   []int64 // the history's processes it used

	// set before exited closes
	clean bool    // it stopped cleanly (done line, exit 0)
	ended []int64 // the processes its death ended (crash ops)
}

// spawn starts a worker process in position at and returns it once it has
// started its clients (fence: at once; it only fences and exits).
func (p *Pool) spawn(at workers.Position, fence bool) (*child, error) {
	cmd := exec.Command(p.opts.Executable, "-test.run=^$", ownedproc.Arg, "owner="+p.owner)
	cmd.Env = append(os.Environ(), childEnv+"="+p.owner)
	cmd.Stderr = p.opts.Stderr
	// Should the harness die without a Stop, its workers die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("worker process for %s: %w", at, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("worker process for %s: %w", at, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("worker process for %s: %w", at, err)
	}
	ch := &child{at: at, pid: cmd.Process.Pid, cmd: cmd, in: newEncoder(stdin),
		ready: make(chan struct{}), exited: make(chan struct{}), stalled: make(chan stallAnswer, 1)}
	ch.stopping, ch.told = context.WithCancel(context.Background())
	go ch.serve(p, stdout)
	ch.in.send(message{Start: &start{Scenario: p.s, Position: at, Bootstrap: p.opts.Bootstrap, Fence: fence}})
	if fence {
		return ch, nil
	}
	t := time.NewTimer(startBound)
	defer t.Stop()
	select {
	case <-ch.ready:
		return ch, nil
	case <-ch.exited:
		return nil, fmt.Errorf("worker process %d for %s exited before its clients started (does this binary call proc.ServeIfChild first?)", ch.pid, at)
	case <-t.C:
		ch.kill("was killed: its clients did not start within " + startBound.String())
		<-ch.exited
		return nil, fmt.Errorf("worker process %d for %s: its clients did not start within %v", ch.pid, at, startBound)
	}
}

// serve takes the worker process's lines until it exits, then reaps it
// and records its end: nothing when it stopped cleanly; its open ops as
// info and its processes crashed otherwise.
func (ch *child) serve(p *Pool, stdout io.Reader) {
	defer close(ch.exited)
	led := newLedger()
	done := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // a poll op may carry many records
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			p.fail(fmt.Errorf("worker process %d (%s): unreadable line: %w", ch.pid, ch.at, err))
			ch.kill("was killed: it wrote an unreadable line")
			continue
		}
		done = done || m.Done
		ch.take(p, led, m)
	}
	werr := ch.cmd.Wait()
	ch.clean = done && werr == nil
	if ch.clean {
		return
	}
	how := ch.endedHow()
	if how == "" {
		how = "exited (" + exitText(werr) + ")"
		p.fail(fmt.Errorf("worker process %d (%s) %s", ch.pid, ch.at, how))
	}
	ch.ended = led.died(p.opts.Recorder, how, ch.pid)
}

// take handles one line of the worker process.
func (ch *child) take(p *Pool, led *ledger, m message) {
	switch {
	case m.Op != nil:
		op := p.opts.Recorder.Record(m.Op)
		if led.note(op) {
			ch.mu.Lock()
			ch.seen = append(ch.seen, op.Process)
			ch.mu.Unlock()
		}
		ch.in.send(message{Reply: &reply{Index: op.Index, Time: op.Time}})
	case m.NextValue:
		ch.in.send(message{Reply: &reply{Value: p.values.Add(1)}})
	case m.NextProcess:
		ch.in.send(message{Reply: &reply{Value: p.procs.Next()}})
	case m.Error != "":
		p.fail(fmt.Errorf("worker process %d (%s): %s", ch.pid, ch.at, m.Error))
	case m.Ready:
		close(ch.ready)
	case m.Stalled != nil:
		ch.answer(*m.Stalled)
	}
}

// answer hands a stall answer to the ask waiting for it; one still there
// that nobody took (its ask gave up) makes way for it.
func (ch *child) answer(a stallAnswer) {
	for {
		select {
		case ch.stalled <- a:
			return
		default:
		}
		select {
		case <-ch.stalled:
		default:
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit 0 without its done line"
	}
	return err.Error()
}

// stop asks the worker process to stop cleanly: close its clients, flush,
// and exit. A paused one stops once it is let go on.
func (ch *child) stop() {
	ch.told()
	ch.in.send(message{Stop: true})
}

// kill ends the worker process with SIGKILL; how says why, in its crash
// ops. The first reason given stays.
func (ch *child) kill(how string) {
	ch.mu.Lock()
	if ch.how == "" {
		ch.how = how
	}
	ch.mu.Unlock()
	ch.cmd.Process.Signal(syscall.SIGKILL) // by pidfd: never a reused pid
}

func (ch *child) endedHow() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.how
}
