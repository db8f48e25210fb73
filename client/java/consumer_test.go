package java

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
)

// produce writes values 0..n-1, value v to key v%2, through librdkafka,
// and fails unless all are ok.
func produce(t *testing.T, e *embedded.Provider, n int64) {
	t.Helper()
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: client.ProducerConfig{Acks: "all"},
		Keys: client.SequentialKeys("t", 2), Recorder: client.NewMemRecorder(), Processes: &client.Processes{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for v := range n {
		res := make(chan histories.Type, 1)
		if err := p.SendAsync(t.Context(), v%2, v, func(typ histories.Type) { res <- typ }); err != nil {
			t.Fatal(err)
		}
		if typ := <-res; typ != histories.OK {
			t.Fatalf("send %d: %s", v, typ)
		}
	}
}

// newTestConsumer starts a Java consumer of keys 0 and 1 of topic t, a
// member of group "g-<commit>" (6 s session) unless commit is none, and
// subscribes or assigns it; it is closed when the test ends.
func newTestConsumer(t *testing.T, e *embedded.Provider, rec client.Recorder, process int64, cfg client.ConsumerConfig) *Consumer {
	t.Helper()
	javatest.NeedJDK(t)
	if cfg.Commit != client.CommitNone {
		cfg.Group, cfg.SessionTimeout = "g-"+string(cfg.Commit), 6*time.Second
	}
	c, err := NewConsumer(t.Context(), ConsumerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: client.SequentialKeys("t", 2),
		Recorder: rec, Process: process})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	t.Logf("JVM started in %v", c.Started)
	if cfg.Group != "" {
		err = c.Subscribe()
	} else {
		err = c.Assign([]histories.Key{0, 1})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Each strategy reads back every value once, and commits (or proves the
// client's automatic commits) up to the end of both keys.
func TestJavaConsumerReadsBackWithEachStrategy(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 20)
	for i, commit := range []client.CommitStrategy{client.CommitAfterProcessing, client.CommitBeforeProcessing, client.CommitAuto, client.CommitNone} {
		t.Run(string(commit), func(t *testing.T) {
			rec := client.NewMemRecorder()
			c := newTestConsumer(t, e, rec, int64(i+1), client.ConsumerConfig{Commit: commit, AutoCommitEach: 100 * time.Millisecond})
			clienttest.PollUntil(t, c, rec.Ops, 20)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			ops := rec.Ops()
			clienttest.CheckPaired(t, ops)
			for v, n := range clienttest.Processed(ops) {
				if n != 1 || v < 0 || v >= 20 {
					t.Errorf("value %d processed %d times, want once", v, n)
				}
			}
			want := map[histories.Key]int64{0: 10, 1: 10}
			if commit == client.CommitNone {
				want = map[histories.Key]int64{}
			}
			if got := clienttest.Committed(ops); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("committed %v, want %v", got, want)
			}
			for _, o := range ops {
				if o.Type != histories.Invoke && o.Type != histories.OK {
					t.Errorf("op %+v: want every op ok on a healthy cluster", o)
				}
			}
		})
	}
}

// A crash before the commit kills the JVM with the poll processed and its
// commit never made: the crash op is the process's last, and no commit op
// follows the processed poll.
func TestJavaConsumerCrashBeforeCommitKillsTheJVM(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 10)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitAfterProcessing})
	if err := c.Crash(client.CrashBeforeCommit); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		err = c.Poll(t.Context(), 100, 200*time.Millisecond)
	}
	if !errors.Is(err, client.ErrCrashed) || !c.Crashed() || !c.Ended() {
		t.Fatalf("poll: %v (crashed %v), want ErrCrashed", err, c.Crashed())
	}
	if ws := c.jvm.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signal() != syscall.SIGKILL {
		t.Fatalf("JVM ended by %v, want SIGKILL", c.jvm.cmd.ProcessState)
	}
	if err := c.Poll(t.Context(), 1, 0); !errors.Is(err, client.ErrCrashed) {
		t.Fatalf("poll after the crash: %v, want ErrCrashed", err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	last := ops[len(ops)-1]
	if last.F != histories.FCrash || len(clienttest.Processed(ops)) == 0 || clienttest.CountF(ops, histories.FCommit) != 0 {
		t.Fatalf("want processed polls, no commit, and a crash op last: %v", ops)
	}
}

// Auto-commit's window: a crash after an automatic commit the client
// proved (its interceptor's report) covered records of the poll, which is
// not processed. The proven commit is an ok commit op, and what a commit
// in flight at the kill may store is an info one, before the crash op.
func TestJavaConsumerAutoCommitCrashAfterCommit(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 10)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitAuto, AutoCommitEach: 100 * time.Millisecond})
	if err := c.Crash(client.CrashAfterCommit); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		err = c.Poll(t.Context(), 100, 200*time.Millisecond)
	}
	if !errors.Is(err, client.ErrCrashed) || !c.Crashed() {
		t.Fatalf("poll: %v, want ErrCrashed", err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	var okCommit, infoPoll bool
	for _, o := range ops {
		okCommit = okCommit || (o.F == histories.FCommit && o.Type == histories.OK)
		infoPoll = infoPoll || (o.F == histories.FPoll && o.Type == histories.Info && len(o.Mops[0].Records) > 0)
	}
	if !okCommit || !infoPoll || ops[len(ops)-1].F != histories.FCrash {
		t.Fatalf("want a proven commit, an info poll with records and a crash op last: %v", ops)
	}
}

// group.protocol=consumer (KIP-848) reaches the Java client without the
// classic settings it refuses beside it: the same config with the session
// timeout put back is refused at start, which is why it is taken out.
func TestJavaConsumerGroupProtocolConsumerStarts(t *testing.T) {
	javatest.NeedJDK(t)
	cfg := client.ConsumerConfig{Group: "g", Commit: client.CommitAfterProcessing, SessionTimeout: 6 * time.Second,
		GroupProtocol: client.GroupConsumer}
	opts := ConsumerOptions{Bootstrap: "127.0.0.1:1", Config: cfg, Keys: client.SequentialKeys("t", 2), Recorder: client.NewMemRecorder(), Process: 1}
	c, err := NewConsumer(t.Context(), opts)
	if err != nil {
		t.Fatalf("the Java client refused the consumer protocol's config: %v", err)
	}
	c.Close()
	opts.Config.Extra = map[string]any{"session.timeout.ms": 6000}
	if c, err := NewConsumer(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "ConfigException") {
		if c != nil {
			c.Close()
		}
		t.Fatalf("session.timeout.ms under the consumer protocol: %v, want the Java client's ConfigException", err)
	}
}

// A JVM that dies unasked (here killed from outside) ends the consumer at
// its next op: that op completes as info, a crash op naming the JVM's exit
// follows, and the error matches client.ErrCrashed (its slot replaces it)
// without counting as a requested crash.
func TestJavaConsumerJVMDeathEndsTheConsumer(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitNone})
	syscall.Kill(c.jvm.cmd.Process.Pid, syscall.SIGKILL)
	<-c.exited
	err := c.Poll(t.Context(), 10, 100*time.Millisecond)
	if !errors.Is(err, client.ErrCrashed) || !errors.Is(err, errJVMGone) || c.Crashed() || !c.Ended() {
		t.Fatalf("poll after the JVM died: %v (crashed %v), want ErrCrashed and errJVMGone, not a requested crash", err, c.Crashed())
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	poll, last := ops[len(ops)-2], ops[len(ops)-1]
	if poll.F != histories.FPoll || poll.Type != histories.Info || last.F != histories.FCrash || !strings.Contains(string(last.Value), "jvm-exit") {
		t.Fatalf("want an info poll and a crash op naming the exit last: %v", ops[len(ops)-2:])
	}
}
