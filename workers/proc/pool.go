package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
	"github.com/kafkachaos/kafkachaos/workers"
)

// Options are what a pool needs besides its scenario.
type Options struct {
	Bootstrap string
	// Recorder is the run's history: the worker processes' ops go there.
	Recorder client.Recorder
	// Stderr takes the worker processes' stderr (librdkafka's logs); nil:
	// this process's.
	Stderr io.Writer
	// Executable is the binary started as a worker process; "": this one
	// (which must call ServeIfChild first).
	Executable string
}

// Pool keeps a worker process in every worker position of a scenario.
type Pool struct {
	s     generators.Scenario
	opts  Options
	owner string // this process's pid:start, the tag of its workers

	procs  client.Processes
	values atomic.Int64

	positions []*position
	stopBound time.Duration

	rngMu sync.Mutex
	rng   *rand.Rand

	// waitPaused confirms in /proc that a SIGSTOP stopped every thread
	// of a worker process (procstat.WaitStopped)
	waitPaused func(ctx context.Context, pid int, want bool, limit time.Duration) error

	errMu sync.Mutex
	errs  []error
}

// New makes the pool of s's workers; Start starts them.
func New(s generators.Scenario, opts Options) (*Pool, error) {
	if opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("worker processes: this binary: %w", err)
		}
		opts.Executable = exe
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	p := &Pool{s: s, opts: opts, owner: ownedproc.Tag(os.Getpid()), stopBound: workers.StopBound() + 15*time.Second,
		rng: rand.New(rand.NewPCG(uint64(s.Seed), 3)), waitPaused: procstat.WaitStopped}
	add := func(role string, n int) {
		for i := range n {
			p.positions = append(p.positions, &position{pool: p, at: workers.Position{Role: role, Index: i}, done: make(chan struct{})})
		}
	}
	add(generators.RoleProducer, s.Workload.Producers)
	add(generators.RoleConsumer, s.Workload.Consumers)
	add(generators.RoleCopier, s.Workload.Copiers)
	add(generators.RoleTxnQueue, s.Workload.TxnQueues)
	return p, nil
}

// Start starts a worker process in every position and returns once each
// has started its clients; positions keep a worker process until ctx
// ends. After an error, Stop still ends what started.
func (p *Pool) Start(ctx context.Context) error {
	var errs []error
	for _, ps := range p.positions {
		first := make(chan error, 1)
		go ps.run(ctx, first)
		if err := <-first; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Stop waits for every worker process to end cleanly, which each does
// once the run's context ends, within the workload's stop bound; it kills
// those that have not, and fences what a killed copier left open.
func (p *Pool) Stop(ctx context.Context) {
	for _, ps := range p.positions {
		ps.stop()
	}
	if !p.waitAll(p.stopBound) {
		for _, ps := range p.positions {
			if ch := ps.running(); ch != nil {
				p.fail(fmt.Errorf("worker process %d (%s) did not stop within %v: killed", ch.pid, ps.at, p.stopBound))
				ch.kill("was killed: it did not stop at the run's end")
			}
		}
		p.waitAll(killBound)
	}
	for _, ps := range p.positions {
		if transactional(ps.at.Role) && ps.unfenced.Load() {
			p.fence(ctx, ps.at)
		}
	}
}

// transactional reports whether a worker of role may leave a transaction
// open when killed.
func transactional(role string) bool {
	return role == generators.RoleCopier || role == generators.RoleTxnQueue
}

// killBound bounds the wait for a killed worker process to be reaped and
// its end recorded.
const killBound = 10 * time.Second

// waitAll waits up to bound for every position's supervisor to return.
func (p *Pool) waitAll(bound time.Duration) bool {
	t := time.NewTimer(bound)
	defer t.Stop()
	for _, ps := range p.positions {
		select {
		case <-ps.done:
		case <-t.C:
			return false
		}
	}
	return true
}

// fence runs a worker process that only fences the transactional id of
// position at (a copier or txn queue), which a killed worker process left
// open, so the final reads do not wait for its transaction to time out.
func (p *Pool) fence(ctx context.Context, at workers.Position) {
	ch, err := p.spawn(at, true)
	if err != nil {
		p.fail(fmt.Errorf("fencing %s: %w", at, err))
		return
	}
	bound := workers.StopBound()
	select {
	case <-ch.exited:
	case <-time.After(bound):
		p.fail(fmt.Errorf("fencing %s: worker process %d still running after %v: killed", at, ch.pid, bound))
		ch.kill("was killed: fencing did not end")
		<-ch.exited
	case <-ctx.Done():
		ch.kill("was killed: the run was stopped")
		<-ch.exited
	}
}

// Err is the harness errors of the pool and its worker processes, joined.
func (p *Pool) Err() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return errors.Join(p.errs...)
}

func (p *Pool) fail(err error) {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	if len(p.errs) < 20 {
		p.errs = append(p.errs, err)
	}
}

// NextProcess is a process id no worker process has used, for a client of
// the run outside the pool (the final reads).
func (p *Pool) NextProcess() int64 { return p.procs.Next() }

// pick is a running worker process of one of roles (any role when none)
// that ok accepts, chosen by the pool's seed; nil when there is none.
func (p *Pool) pick(roles []string, ok func(*child) bool) *child {
	var live []*child
	for _, ps := range p.positions {
		if len(roles) > 0 && !slices.Contains(roles, ps.at.Role) {
			continue
		}
		if ch := ps.current(); ch != nil && ok(ch) {
			live = append(live, ch)
		}
	}
	if len(live) == 0 {
		return nil
	}
	p.rngMu.Lock()
	defer p.rngMu.Unlock()
	return live[p.rng.IntN(len(live))]
}
