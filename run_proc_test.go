package kafkachaos_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// Clients in worker processes of their own (workload.client-processes):
// a client crash is a SIGKILL — no close, no flush, no final commit — and
// a client can be frozen whole with SIGSTOP.

// Producers and group consumers (committing after processing), killed
// and paused: every killed process's open ops are info and a crash op
// ends it, the guarantee holds (at-least-once: redeliveries allowed), and
// no worker process outlives the run.
func TestChaosClientProcesses(t *testing.T) {
	s := base("client-processes", 8*time.Second)
	s.Workload.Consumers, s.Workload.Mode, s.Workload.ClientProcesses = 2, generators.ModeGroup, true
	every := func(kind string, at, dur, each time.Duration) generators.Fault {
		return generators.Fault{Kind: kind, Start: d(at), Duration: d(dur), Params: generators.FaultParams{Every: d(each)}}
	}
	pause := generators.Fault{Kind: generators.KindPauseClient, Start: d(2500 * time.Millisecond), Duration: d(1500 * time.Millisecond),
		Params: generators.FaultParams{Role: generators.RoleConsumer}}
	s.Nemesis = []generators.Fault{every(generators.KindCrashProducer, 1500*time.Millisecond, 5*time.Second, 2*time.Second),
		every(generators.KindCrashConsumer, 2*time.Second, 4*time.Second, 2*time.Second), pause}
	out := runKept(t, s)
	processesKilledAndGone(t, out, 3)
}

// processesKilledAndGone checks a client-process run: every fault fired,
// at least kills SIGKILLs ended processes in the history, every invoke
// completed, and no worker process is left.
func processesKilledAndGone(t *testing.T, out runner.Outcome, kills int) {
	t.Helper()
	for _, f := range out.Stats.Faults {
		if f.Fired == 0 {
			t.Errorf("fault %s never fired: %v", f.Kind, f.Errors)
		}
	}
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	open, killed := map[int64]int{}, 0
	for _, op := range ops {
		switch {
		case op.F == histories.FCrash:
			if strings.Contains(string(op.Value), "SIGKILL") {
				killed++
			}
		case op.Type == histories.Invoke:
			open[op.Process]++
		case op.IsClient() && op.F != histories.FClientHang:
			open[op.Process]--
		}
	}
	if killed < kills {
		t.Errorf("%d processes ended by SIGKILL in the history, want >= %d", killed, kills)
	}
	for p, n := range open {
		if n != 0 {
			t.Errorf("process %d: %d invokes never completed", p, n)
		}
	}
	if left := proc.Workers(); len(left) > 0 {
		t.Errorf("worker processes left after the run: %v", left)
	}
	t.Logf("%d processes SIGKILLed; %d crashes; %d ops", killed, out.Stats.Crashes, len(ops))
}

// A group consumer (committing after processing) paused with SIGSTOP for
// three times its 1 s session timeout while the group rebalances, on real
// brokers: when it wakes, its member is gone, and a commit it then makes
// must be rejected; what it had read is redelivered to the others
// (duplicate-delivery, which at-least-once allows). Another consumer is
// killed (SIGKILL) once.
func TestChaosLocalPausedConsumerZombie(t *testing.T) {
	p := requireFull(t, "local", "evidence: full profile only (make chaos-local); CI's short profile runs the paused copier")
	s := realScenario("local-paused-consumer", p)
	s.Workload.Consumers, s.Workload.Mode, s.Workload.ClientProcesses = 2, generators.ModeGroup, true
	s.Consumer.CommitStrategy = model.CommitAfterProcessing
	pause := faultAt(s, generators.KindPauseClient, "", 0.2, 0.2)
	pause.Duration, pause.Params.Role = d(3*time.Second), generators.RoleConsumer
	kill := faultAt(s, generators.KindCrashConsumer, "", 0.7, 0.7)
	s.Nemesis = []generators.Fault{pause, kill}
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	processesKilledAndGone(t, a.out, 1)
	zombie := afterResume(t, a.out, histories.FCommit)
	t.Logf("the paused consumer after it woke: %s", zombie)
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
}

// Two transactional copiers, one paused with SIGSTOP for 6 s (its group
// session is 1 s: the other takes its partitions) and one copier or
// producer killed once, on real brokers: the zombie's transaction, when it
// wakes, must not commit (its offsets' generation is stale), and the copy
// stays exactly-once.
func TestChaosLocalPausedCopierZombie(t *testing.T) {
	p := requireReal(t, "local")
	s := realScenario("local-paused-copier", p).TransactionalCopy(1, 0, 200)
	s.Workload.ClientProcesses = true
	pause := faultAt(s, generators.KindPauseClient, "", 0.2, 0.2)
	pause.Duration, pause.Params.Role = d(6*time.Second), generators.RoleCopier
	kill := faultAt(s, generators.KindCrashProducer, "", 0.75, 0.75)
	s.Nemesis = []generators.Fault{pause, kill}
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	processesKilledAndGone(t, a.out, 1)
	t.Logf("the paused copier after it woke: %s", afterResume(t, a.out, histories.FTxn))
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
}

// afterResume tells what the paused worker process's ops of kind f did
// once it was let go on: their completions by type and first error line.
func afterResume(t *testing.T, out runner.Outcome, f string) string {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	var paused struct {
		Detail struct {
			PID       int     `json:"pid"`
			Processes []int64 `json:"processes"`
		} `json:"detail"`
	}
	resumed, rejoined := false, false
	counts := map[string]int{}
	for _, op := range ops {
		mine := slices.Contains(paused.Detail.Processes, op.Process)
		switch {
		case op.F == histories.FaultStart(generators.KindPauseClient) && paused.Detail.PID == 0:
			json.Unmarshal(op.Value, &paused)
		case op.F == histories.FaultStop(generators.KindPauseClient):
			resumed = true
		case resumed && mine && op.Rebalance != nil:
			rejoined = true
		}
		if !resumed || !mine || op.F != f || op.Type == histories.Invoke {
			continue
		}
		e, _, _ := strings.Cut(op.Error, "\n")
		counts[strings.TrimSpace(string(op.Type)+" "+e)]++
		if op.Type == histories.OK && !rejoined {
			// its member was gone from the group for twice its session
			// timeout: a commit it makes before it learns so is a zombie's
			t.Errorf("FINDING: the paused worker's %s op %d committed after it woke, before its partitions were revoked", f, op.Index)
		}
	}
	return fmt.Sprintf("worker pid %d (processes %v): its %s ops completing after the resume: %v", paused.Detail.PID, paused.Detail.Processes, f, counts)
}
