package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/workers"
)

// childEnv marks a worker process; its value is the owner tag.
const childEnv = "KAFKACHAOS_WORKER_PROCESS"

// replyBound is how long a worker waits for the harness to answer: it
// answers in microseconds, so one that has not in a minute is hung or
// gone, and the worker cannot record honestly any more.
const replyBound = time.Minute

// ServeIfChild makes this process a worker process when a Pool started it
// as one, and then never returns; otherwise it returns at once. Call it
// first in main, and in TestMain of every test binary whose tests run
// client processes.
func ServeIfChild() {
	if os.Getenv(childEnv) == "" {
		return
	}
	os.Exit(serve(os.Stdin, os.Stdout, os.Stderr))
}

// worker is the worker process's end of the wire: the workload's recorder,
// value and process-id source.
type worker struct {
	out     *encoder
	mu      sync.Mutex // one request waits for its reply at a time
	replies chan reply
	gone    chan struct{} // closed when the harness's end is closed
	stalls  chan message  // the harness's stalls and resumes (serveStalls)
}

// serve runs the position the harness sends until told to stop, and
// returns the exit code.
func serve(in io.Reader, out, stderr io.Writer) int {
	dec := json.NewDecoder(bufio.NewReader(in))
	var m message
	if err := dec.Decode(&m); err != nil || m.Start == nil {
		fmt.Fprintf(stderr, "kafkachaos worker: no start message from the harness (%v)\n", err)
		return 2
	}
	st := m.Start
	w := &worker{out: newEncoder(out), replies: make(chan reply, 1), gone: make(chan struct{}), stalls: make(chan message, 2)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.read(dec, cancel)
	pos := st.Position
	wl, err := workers.New(st.Scenario, workers.Options{Bootstrap: st.Bootstrap, Recorder: w, Only: &pos,
		Values: w.nextValue, Processes: client.ProcessesFrom(w.nextProcess),
		Logs: client.NewLogs(client.NewLogWriter(stderr))})
	if err != nil {
		w.out.send(message{Error: err.Error()})
		return 1
	}
	if st.Fence {
		wl.FenceTransactions(ctx)
		return w.finish(wl)
	}
	if err := wl.Start(ctx); err != nil {
		w.out.send(message{Error: err.Error()})
		wl.Stop(context.Background())
		return 1
	}
	w.out.send(message{Ready: true})
	go w.serveStalls(ctx, wl)
	<-ctx.Done()
	wl.Stop(context.Background())
	return w.finish(wl)
}

// finish reports the workload's harness errors and the clean end.
func (w *worker) finish(wl *workers.Workload) int {
	if err := wl.Err(); err != nil {
		w.out.send(message{Error: err.Error()})
	}
	if err := w.out.send(message{Done: true}); err != nil {
		return 1
	}
	return 0
}

// read takes the harness's lines: replies go to the waiting request; a
// stop, or the harness's end closing, ends the run (cancel).
func (w *worker) read(dec *json.Decoder, cancel context.CancelFunc) {
	defer close(w.gone)
	defer cancel()
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			return
		}
		switch {
		case m.Reply != nil:
			w.replies <- *m.Reply
		case m.Stop:
			cancel()
		case m.Stall != nil || m.Resume:
			select {
			case w.stalls <- m:
			default: // never full: the harness has at most a stall and its resume outstanding
			}
		}
	}
}

// call sends m and waits for its reply.
func (w *worker) call(m message) (reply, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.out.send(m); err != nil {
		return reply{}, err
	}
	t := time.NewTimer(replyBound)
	defer t.Stop()
	select {
	case r := <-w.replies:
		return r, nil
	case <-w.gone:
		return reply{}, errHarnessGone
	case <-t.C:
		return reply{}, fmt.Errorf("the harness did not answer within %v", replyBound)
	}
}

var errHarnessGone = errors.New("the harness's end of the wire closed")

// Record implements client.Recorder: the harness stamps and appends op
// before the worker goes on. A worker that cannot record any more exits:
// what it did next could not be in the history.
func (w *worker) Record(op *histories.Op) *histories.Op {
	r, err := w.call(message{Op: op})
	if err != nil {
		fmt.Fprintf(os.Stderr, "kafkachaos worker: recording op of process %d: %v; exiting\n", op.Process, err)
		os.Exit(3)
	}
	op.Index, op.Time = r.Index, r.Time
	return op
}

func (w *worker) nextValue() int64   { return w.next(message{NextValue: true}) }
func (w *worker) nextProcess() int64 { return w.next(message{NextProcess: true}) }

func (w *worker) next(m message) int64 {
	r, err := w.call(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kafkachaos worker: %v; exiting\n", err)
		os.Exit(3)
	}
	return r.Value
}
