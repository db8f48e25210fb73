package chaostest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// restartPause is how long a slot waits before starting code that ended on
// its own again, so that code failing at once does not spin.
const restartPause = 100 * time.Millisecond

// supervisor keeps Options.Instances copies of the code running, each in a
// slot, and starts a new one in a slot whose code crashed or returned, as a
// process supervisor would, until the run stops it.
type supervisor struct {
	svc   Service
	env   Env
	grace time.Duration
	intN  func(int) int
	loops sync.WaitGroup

	mu       sync.Mutex
	stopping bool
	current  []*instance // per slot; nil before its first start
	starts   int
	notes    []string // code that returned on its own
	hangs    []string // code that did not return within grace of its cancel
}

// instance is one start of the code.
type instance struct {
	start    int
	cancel   context.CancelFunc
	returned chan struct{} // closed when the code returned; err is set then
	err      error
	over     chan struct{} // closed when the slot may start again: returned, or abandoned
	overOnce sync.Once
	crashed  bool // under the supervisor's mu
}

func (in *instance) end() { in.overOnce.Do(func() { close(in.over) }) }

func newSupervisor(svc Service, env Env, o Options, intN func(int) int) *supervisor {
	return &supervisor{svc: svc, env: env, grace: o.StopGrace, intN: intN, current: make([]*instance, o.Instances)}
}

func (s *supervisor) start(ctx context.Context) {
	for i := range s.current {
		s.loops.Add(1)
		go s.keep(ctx, i)
	}
}

// keep runs the code in slot i until the supervisor stops.
func (s *supervisor) keep(ctx context.Context, i int) {
	defer s.loops.Done()
	for {
		in := s.launch(ctx, i)
		if in == nil {
			return
		}
		<-in.over
		s.mu.Lock()
		stopping, crashed := s.stopping, in.crashed
		if !stopping && !crashed {
			s.note(fmt.Sprintf("start %d of the code returned on its own: %v", in.start, in.err))
		}
		s.mu.Unlock()
		if stopping || (!crashed && !ctxsleep.For(ctx, restartPause)) {
			return
		}
	}
}

// launch starts the code in slot i, or returns nil once stopping.
func (s *supervisor) launch(ctx context.Context, i int) *instance {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || ctx.Err() != nil {
		return nil
	}
	ictx, cancel := context.WithCancel(ctx)
	in := &instance{start: s.starts, cancel: cancel, returned: make(chan struct{}), over: make(chan struct{})}
	s.starts++
	s.current[i] = in
	env := s.env
	env.Start = in.start
	env.TransactionalID = fmt.Sprintf("%s-%d", s.env.TransactionalID, i)
	go func() {
		defer in.end()
		defer close(in.returned)
		defer func() {
			if p := recover(); p != nil {
				in.err = fmt.Errorf("panic: %v", p)
			}
		}()
		in.err = s.svc(ictx, env)
	}()
	return in
}

// halt cancels in and waits up to grace for it to return. Code that does
// not is a hang: reported, abandoned (its goroutine left behind), and its
// slot goes on.
func (s *supervisor) halt(in *instance, why string) (returnedIn time.Duration, hung bool) {
	began := time.Now()
	in.cancel()
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-in.returned:
		return time.Since(began), false
	case <-t.C:
		stacks := s.dumpStacks(in.start)
		s.mu.Lock()
		s.hangs = append(s.hangs, fmt.Sprintf("start %d of the code did not return within %v of its ctx's cancellation (%s); it was abandoned%s",
			in.start, s.grace, why, stacks))
		s.mu.Unlock()
		in.end()
		return time.Since(began), true
	}
}

// crash crashes a running instance chosen by the seed. It did not take
// effect (errNotFired) when none runs, or when the code did not return
// within grace.
func (s *supervisor) crash() (map[string]any, error) {
	s.mu.Lock()
	var running []*instance
	for _, in := range s.current {
		if in != nil && !in.crashed && !isClosed(in.over) {
			running = append(running, in)
		}
	}
	if s.stopping || len(running) == 0 {
		s.mu.Unlock()
		why := "no running start of the code to crash"
		return map[string]any{"crashed": nil, "why": why}, fmt.Errorf("%w: %s", errNotFired, why)
	}
	in := running[s.intN(len(running))]
	in.crashed = true
	s.mu.Unlock()
	took, hung := s.halt(in, "a crash")
	d := map[string]any{"crashed": in.start, "returned-ms": took.Milliseconds(), "hung": hung}
	if hung {
		return d, fmt.Errorf("%w: start %d of the code did not return within %v of its crash", errNotFired, in.start, s.grace)
	}
	return d, nil
}

// stop ends every slot: no new start, each running instance cancelled and
// given grace to return.
func (s *supervisor) stop() {
	s.mu.Lock()
	s.stopping = true
	running := append([]*instance(nil), s.current...)
	s.mu.Unlock()
	for _, in := range running {
		if in != nil && !isClosed(in.over) {
			s.halt(in, "the end of the run")
		}
	}
	s.loops.Wait() // each loop returns once its instance is over
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// crashFault is the crash-consumer and crash-producer kinds for code under
// test: an instantaneous fault that crashes one running start of the code
// (its slot starts it again at once). It cannot be undone, so Stop does
// nothing. Its op's detail names the start it crashed, or why there was
// none.
type crashFault struct {
	kind string
	sup  *supervisor
	mu   sync.Mutex
	last map[string]any
}

func (f *crashFault) Name() string               { return f.kind }
func (f *crashFault) Stop(context.Context) error { return nil }

func (f *crashFault) Start(context.Context) error {
	d, err := f.sup.crash()
	f.mu.Lock()
	f.last = d
	f.mu.Unlock()
	return err
}

func (f *crashFault) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// report is what the supervisor saw: code that returned on its own, and
// code that hung.
func (s *supervisor) report() (notes, hangs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes), slices.Clone(s.hangs)
}

// maxNotes bounds the notes kept: code that fails at every start would
// otherwise note one every restartPause.
const maxNotes = 20

// note keeps n, or counts it once maxNotes are kept; called with mu held.
func (s *supervisor) note(n string) {
	switch {
	case len(s.notes) < maxNotes:
		s.notes = append(s.notes, n)
	case len(s.notes) == maxNotes:
		s.notes = append(s.notes, "later starts that returned on their own are not listed")
	}
}

// dumpStacks writes every goroutine's stack to hang-<start>.txt in the run
// directory, where the hung code's own goroutine shows what it waits on,
// and says where; "" when it could not.
func (s *supervisor) dumpStacks(start int) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	path := filepath.Join(s.env.Dir, fmt.Sprintf("hang-%d.txt", start))
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		return ""
	}
	return "; every goroutine's stack: " + path
}
