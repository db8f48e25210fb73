package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
	"github.com/kafkachaos/kafkachaos/model"
)

func TestMain(m *testing.M) {
	ServeIfChild()
	os.Exit(m.Run())
}

// procScenario: a producer with two lanes, a group consumer committing
// after processing, a transactional copier and a txn queue, on an embedded
// cluster.
func procScenario() generators.Scenario {
	return generators.Scenario{
		Name: "proc", Seed: 1,
		Cluster:  generators.Cluster{Provider: "embedded", Brokers: 3},
		Keys:     generators.SequentialKeys(2, "in", "out"),
		Topic:    model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Producer: generators.Producer{ProducerConfig: model.ProducerConfig{Acks: model.AcksAll, Retries: 1 << 30, EnableIdempotence: true, MaxInFlight: 5, TransactionalID: "t"}, DeliveryTimeout: generators.Duration(10 * time.Second), RequestTimeout: generators.Duration(2 * time.Second)},
		Consumer: generators.Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}, SessionTimeout: generators.Duration(time.Second)},
		Workload: generators.Workload{Producers: 1, Lanes: 2, Consumers: 1, Copiers: 1, TxnQueues: 1, Mode: generators.ModeGroup, Group: "g",
			Mix: generators.Mix{Send: 2, Poll: 1, Txn: 1}, Rate: 300, TxnSize: 5, PollBatch: 50, ClientProcesses: true},
		TimeLimit: generators.Duration(5 * time.Second),
	}
}

// TestKillPauseAndChurnWorkerProcesses runs every client in a process of
// its own, kills the producer's and the copier's with SIGKILL, pauses the
// consumer's and churns it, and checks the history says exactly that:
// every invoke completed, the killed processes' open ops info, a crash op
// ending each, successors under new process ids; and that no worker
// process outlives the pool.
func TestKillPauseAndChurnWorkerProcesses(t *testing.T) {
	s := procScenario()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e := embeddedtest.StartScenario(t, s)
	rec := client.NewMemRecorder()
	pool, err := New(s, Options{Bootstrap: e.Bootstrap(), Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	if err := pool.Start(wctx); err != nil {
		stop()
		pool.Stop(ctx)
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	var killed []Event
	for _, role := range []string{generators.RoleProducer, generators.RoleCopier, generators.RoleTxnQueue} {
		ev, err := pool.Kill(ctx, role)
		if err != nil {
			t.Fatalf("kill %s: %v", role, err)
		}
		if ev.Position != role+" 0" || ev.Signal != "SIGKILL" || ev.PID == 0 {
			t.Fatalf("kill %s: event %+v", role, ev)
		}
		killed = append(killed, ev)
		time.Sleep(500 * time.Millisecond)
	}
	paused, err := pool.Pause(ctx, generators.RoleConsumer)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := pool.Pause(ctx, generators.RoleConsumer); err == nil {
		t.Fatalf("paused the paused consumer again: %+v", again.Event)
	}
	time.Sleep(500 * time.Millisecond)
	if err := paused.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Churn(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	stop()
	pool.Stop(ctx)
	if err := pool.Err(); err != nil {
		t.Errorf("pool errors: %v", err)
	}
	if left := Workers(); len(left) > 0 {
		t.Fatalf("worker processes left after Stop: %v", left)
	}
	checkHistory(t, rec.Ops(), killed)
}

// checkHistory: every invoke completes; each killed process ends with a
// crash op after its last op; the producer's and the copier's positions
// went on under new process ids.
func checkHistory(t *testing.T, ops []histories.Op, killed []Event) {
	t.Helper()
	open := map[int64]int{}
	last := map[int64]histories.Op{}
	sends, txns := map[int64]bool{}, map[int64]bool{}
	for _, op := range ops {
		switch op.Type {
		case histories.Invoke:
			open[op.Process]++
		default:
			if op.F != histories.FCrash && op.F != histories.FClientHang {
				open[op.Process]--
			}
		}
		last[op.Process] = op
		if op.F == histories.FSend && op.Type == histories.OK {
			sends[op.Process] = true
		}
		if op.F == histories.FTxn && op.Type == histories.OK {
			txns[op.Process] = true
		}
	}
	for p, n := range open {
		if n != 0 {
			t.Errorf("process %d: %d invokes never completed", p, n)
		}
	}
	for _, ev := range killed {
		if len(ev.Ended) == 0 {
			t.Errorf("%s: the kill ended no process", ev.Position)
		}
		for _, p := range ev.Ended {
			if op := last[p]; op.F != histories.FCrash || !strings.Contains(string(op.Value), "SIGKILL") {
				t.Errorf("%s: process %d's last op is %+v, want its crash", ev.Position, p, op)
			}
		}
	}
	after := func(ok map[int64]bool, ended []int64) bool {
		for p := range ok {
			if !slices.Contains(ended, p) {
				return true
			}
		}
		return false
	}
	if !after(sends, killed[0].Ended) {
		t.Errorf("no acknowledged send by a producer process other than the killed %v", killed[0].Ended)
	}
	if !after(txns, slices.Concat(killed[1].Ended, killed[2].Ended)) {
		t.Errorf("no committed txn by a copier or queue process other than the killed %v, %v", killed[1].Ended, killed[2].Ended)
	}
}

// TestABinaryThatDoesNotServeIsRefused: a worker process that never says
// it started is an error naming the fix, within the start bound.
func TestABinaryThatDoesNotServeIsRefused(t *testing.T) {
	s := procScenario()
	s.Workload.Consumers, s.Workload.Copiers, s.Workload.TxnQueues = 0, 0, 0
	pool, err := New(s, Options{Bootstrap: "127.0.0.1:1", Recorder: client.NewMemRecorder(), Executable: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = pool.Start(ctx)
	cancel()
	pool.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ServeIfChild") {
		t.Fatalf("Start with /bin/true: %v, want an error naming ServeIfChild", err)
	}
}

// TestSweepKillsWorkersOfADeadOwner: a worker process whose owner is gone
// is killed; one whose owner lives is not.
func TestSweepKillsWorkersOfADeadOwner(t *testing.T) {
	// bash waits on its stdin with a builtin: no child of its own to
	// outlive it
	orphan := exec.Command("bash", "-c", "read x; true", ownedproc.Arg, "owner=999999999:1")
	mine := exec.Command("bash", "-c", "read x; true", ownedproc.Arg, "owner="+ownedproc.Tag(os.Getpid()))
	for _, c := range []*exec.Cmd{orphan, mine} {
		if _, err := c.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Skipf("no bash: %v", err)
		}
		defer c.Process.Kill()
	}
	// bash's cmdline is in /proc once it execs, which a loaded machine
	// may take a while to do
	execed := func(c *exec.Cmd) bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.Process.Pid))
		return bytes.Contains(b, []byte(ownedproc.Arg))
	}
	for deadline := time.Now().Add(10 * time.Second); !execed(orphan) || !execed(mine); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the two workers' command lines not in /proc after 10 s")
		}
	}
	if n := Sweep(); n != 1 {
		t.Fatalf("Sweep killed %d, want the orphan only", n)
	}
	if err := orphan.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("orphan: %v, want killed", err)
	}
	if got := Workers(); !slices.Contains(got, mine.Process.Pid) {
		t.Fatalf("Workers() = %v, want it to list %d", got, mine.Process.Pid)
	}
}
