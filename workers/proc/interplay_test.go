package proc

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
	"github.com/kafkachaos/kafkachaos/workers"
)

// groupScenario: two producers and three group consumers, each in a
// worker process of its own.
func groupScenario() generators.Scenario {
	s := procScenario()
	s.Keys = generators.SequentialKeys(3, "in", "")
	s.Producer.TransactionalID = ""
	s.Workload.Producers, s.Workload.Consumers, s.Workload.Copiers, s.Workload.TxnQueues = 2, 3, 0, 0
	s.Workload.Mix = generators.Mix{Send: 1, Poll: 1}
	return s
}

// startPool starts a pool of s on an embedded cluster; the returned stop
// ends it (once), checks it left no harness error and no worker process,
// and returns the history.
func startPool(t *testing.T, s generators.Scenario) (*Pool, *client.MemRecorder, func() []histories.Op) {
	t.Helper()
	e := embeddedtest.StartScenario(t, s)
	rec := client.NewMemRecorder()
	pool, err := New(s, Options{Bootstrap: e.Bootstrap(), Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	stopped := false
	stop := func() []histories.Op {
		if !stopped {
			stopped = true
			cancel()
			pool.Stop(context.Background())
		}
		return rec.Ops()
	}
	t.Cleanup(func() { stop() })
	if err := pool.Start(wctx); err != nil {
		t.Fatal(err)
	}
	return pool, rec, func() []histories.Op {
		ops := stop()
		if err := pool.Err(); err != nil {
			t.Errorf("pool errors: %v", err)
		}
		if left := Workers(); len(left) > 0 {
			t.Errorf("worker processes left after Stop: %v", left)
		}
		return ops
	}
}

// consumerPIDs are the running consumers' worker processes.
func consumerPIDs(p *Pool) []int {
	var out []int
	for _, ps := range p.positions {
		if ch := ps.current(); ch != nil && ps.at.Role == generators.RoleConsumer {
			out = append(out, ch.pid)
		}
	}
	return out
}

// checkFrozen: /proc shows every thread of each of frozen stopped, and
// none of each other running consumer's.
func checkFrozen(t *testing.T, p *Pool, frozen ...int) {
	t.Helper()
	for _, pid := range consumerPIDs(p) {
		stopped, running, err := procstat.Threads(pid)
		if err != nil {
			t.Fatalf("worker process %d: %v", pid, err)
		}
		want := slices.Contains(frozen, pid)
		if (want && (stopped == 0 || running > 0)) || (!want && stopped > 0) {
			t.Fatalf("worker process %d: %d threads in state T, %d not; want it paused: %v", pid, stopped, running, want)
		}
	}
}

// TestPauseLeavesTheOtherConsumersToStallAndChurn: of three consumers'
// worker processes, a pause stops one (state T in /proc) and leaves the
// other two to stall and churn, which never pick the paused one; each
// further pause takes another, until all three are paused, when stall and
// churn find none; resumed, all run again.
func TestPauseLeavesTheOtherConsumersToStallAndChurn(t *testing.T) {
	pool, _, stop := startPool(t, groupScenario())
	ctx := context.Background()
	time.Sleep(time.Second)
	first, err := pool.Pause(ctx, generators.RoleConsumer)
	if err != nil {
		t.Fatal(err)
	}
	checkFrozen(t, pool, first.PID)
	st, err := pool.Stall(ctx, 5*time.Second, 20*time.Second)
	if err != nil {
		t.Fatalf("stall with two consumers unpaused: %v", err)
	}
	if st.ch.pid == first.PID {
		t.Fatalf("stalled the paused worker process %d", first.PID)
	}
	if _, err := st.Resume(); err != nil {
		t.Fatal(err)
	}
	churned, err := pool.Churn(ctx)
	if err != nil {
		t.Fatalf("churn with two consumers unpaused: %v", err)
	}
	if churned.PID == first.PID {
		t.Fatalf("churned the paused worker process %d", first.PID)
	}
	time.Sleep(time.Second) // the churned one's successor starts
	paused := []*Paused{first}
	for range 2 {
		next, err := pool.Pause(ctx, generators.RoleConsumer)
		if err != nil {
			t.Fatalf("pause %d of 3 consumers: %v", len(paused)+1, err)
		}
		paused = append(paused, next)
	}
	pids := []int{paused[0].PID, paused[1].PID, paused[2].PID}
	checkFrozen(t, pool, pids...)
	if distinct := slices.Compact(slices.Sorted(slices.Values(pids))); len(distinct) != 3 {
		t.Fatalf("three pauses stopped %v: want three worker processes", pids)
	}
	if _, err := pool.Pause(ctx, generators.RoleConsumer); !errors.Is(err, workers.ErrNothingToCrash) {
		t.Fatalf("a fourth pause of three consumers: %v, want none to pause", err)
	}
	if _, err := pool.Stall(ctx, time.Second, time.Second); !errors.Is(err, workers.ErrNothingToCrash) {
		t.Fatalf("stall with every consumer paused: %v, want none to stall", err)
	}
	if _, err := pool.Churn(ctx); !errors.Is(err, workers.ErrNothingToCrash) {
		t.Fatalf("churn with every consumer paused: %v, want none to churn", err)
	}
	for _, p := range paused {
		if err := p.Resume(ctx); err != nil {
			t.Fatal(err)
		}
	}
	checkFrozen(t, pool)
	stop()
}

// TestAPauseNotConfirmedIsUndone: a pause whose SIGSTOP /proc does not
// confirm is not a pause: the worker process is let go on (no thread in
// state T) and may be paused again.
func TestAPauseNotConfirmedIsUndone(t *testing.T) {
	pool, _, stop := startPool(t, groupScenario())
	ctx := context.Background()
	time.Sleep(time.Second)
	pool.waitPaused = func(ctx context.Context, pid int, want bool, limit time.Duration) error {
		if err := procstat.WaitStopped(ctx, pid, want, limit); err != nil {
			t.Fatalf("the SIGSTOP did not stop %d: %v", pid, err)
		}
		return errors.New("lost track of the process")
	}
	if p, err := pool.Pause(ctx, generators.RoleConsumer); err == nil {
		t.Fatalf("an unconfirmed pause counted: %+v", p.Event)
	}
	checkFrozen(t, pool)
	pool.waitPaused = procstat.WaitStopped
	var paused []*Paused
	var pids []int
	for range 3 {
		p, err := pool.Pause(ctx, generators.RoleConsumer)
		if err != nil {
			t.Fatalf("pause %d of 3 consumers after an unconfirmed one: %v", len(pids)+1, err)
		}
		paused, pids = append(paused, p), append(pids, p.PID)
	}
	checkFrozen(t, pool, pids...)
	for _, p := range paused {
		if err := p.Resume(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop()
}

// TestAStallGivenUpOnIsResumed: a stall the harness stopped waiting for
// (here its context ended at once) is resumed: each of the three
// consumers begins polls again once the stall had time to be held.
func TestAStallGivenUpOnIsResumed(t *testing.T) {
	pool, rec, stop := startPool(t, groupScenario())
	time.Sleep(time.Second)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := pool.Stall(gone, 5*time.Second, 20*time.Second); err == nil {
		t.Fatalf("a stall whose context had ended held %+v", st.Report)
	}
	time.Sleep(1500 * time.Millisecond) // the worker process holds its consumer within a poll
	from := len(rec.Ops())
	time.Sleep(1500 * time.Millisecond)
	ops := rec.Ops()[from:]
	for _, ps := range pool.positions {
		ch := ps.current()
		if ps.at.Role != generators.RoleConsumer || ch == nil {
			continue
		}
		polled := slices.ContainsFunc(ops, func(op histories.Op) bool {
			return op.F == histories.FPoll && op.Type == histories.Invoke && slices.Contains(ch.processes(), op.Process)
		})
		if !polled {
			t.Errorf("worker process %d (%s): no poll begun 1.5-3 s after the stall was given up on", ch.pid, ch.at)
		}
	}
	stop()
}
