package franz

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
)

// produce writes values 0..n-1, value v to key v%2, through franz-go, and
// fails unless all are ok.
func produce(t *testing.T, e *embedded.Provider, n int64) {
	t.Helper()
	p := newTestProducer(t, e, client.SequentialKeys("t", 2), client.NewMemRecorder(), client.ProducerConfig{Acks: "all", Idempotence: true}, 1)
	for v := range n {
		if typ := clienttest.SendOne(t, p, v%2, v); typ != histories.OK {
			t.Fatalf("send %d: %s", v, typ)
		}
	}
}

// newTestConsumer starts a franz-go consumer of keys 0 and 1 of topic t,
// a member of group "g-<commit>" (6 s session) unless commit is none, and
// subscribes or assigns it; it is closed when the test ends.
func newTestConsumer(t *testing.T, e *embedded.Provider, rec client.Recorder, process int64, cfg client.ConsumerConfig) *Consumer {
	t.Helper()
	if cfg.Commit != client.CommitNone && cfg.Group == "" {
		cfg.Group, cfg.SessionTimeout = "g-"+string(cfg.Commit), 6*time.Second
	}
	c, err := NewConsumer(ConsumerOpts{Bootstrap: e.Bootstrap(), Config: cfg, Keys: client.SequentialKeys("t", 2),
		Recorder: rec, Process: process})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
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

// Each strategy reads back every value once, and commits (or proves kgo's
// automatic commits) up to the end of both keys. An auto-committing
// consumer commits a poll's records once the next poll has begun (kgo's
// one-poll lag), so it polls once more before it closes.
func TestFranzConsumerReadsBackWithEachStrategy(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 20)
	for i, commit := range []client.CommitStrategy{client.CommitAfterProcessing, client.CommitBeforeProcessing, client.CommitAuto, client.CommitNone} {
		t.Run(string(commit), func(t *testing.T) {
			rec := client.NewMemRecorder()
			c := newTestConsumer(t, e, rec, int64(i+1), client.ConsumerConfig{Commit: commit, AutoCommitEach: 100 * time.Millisecond})
			clienttest.PollUntil(t, c, rec.Ops, 20)
			if commit == client.CommitAuto {
				if err := c.Poll(t.Context(), 7, 200*time.Millisecond); err != nil {
					t.Fatal(err)
				}
			}
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
			if commit != client.CommitNone && !assignedBoth(ops) {
				t.Errorf("no poll recorded the assignment of keys 0 and 1: %v", ops)
			}
		})
	}
}

// assignedBoth reports whether the polls of ops recorded keys 0 and 1
// assigned.
func assignedBoth(ops []histories.Op) bool {
	got := map[histories.Key]bool{}
	for _, o := range ops {
		if o.Rebalance != nil {
			for _, k := range o.Rebalance.Assigned {
				got[k] = true
			}
		}
	}
	return got[0] && got[1]
}

// A crash before the commit ends the process with its poll processed and
// its commit never made: the crash op is the process's last, and no commit
// op follows the processed poll; the next op is refused.
func TestFranzConsumerCrashBeforeCommit(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 10)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitAfterProcessing})
	if err := c.Crash(client.CrashBeforeCommit); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.Crashed() && time.Now().Before(deadline) {
		if err := c.Poll(t.Context(), 7, 200*time.Millisecond); err != nil && !errors.Is(err, client.ErrCrashed) {
			t.Fatal(err)
		}
	}
	if !c.Crashed() {
		t.Fatal("the crash never landed")
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	last := ops[len(ops)-1]
	if last.F != histories.FCrash || last.Type != histories.Info {
		t.Fatalf("last op %+v, want the crash", last)
	}
	prev := ops[len(ops)-2]
	if prev.F != histories.FPoll || prev.Type != histories.OK || len(clienttest.Processed([]histories.Op{prev})) == 0 {
		t.Fatalf("op before the crash %+v, want the processed poll", prev)
	}
	if got := clienttest.Committed(ops); len(got) != 0 {
		t.Errorf("committed %v, want nothing", got)
	}
	if err := c.Poll(t.Context(), 7, 100*time.Millisecond); !errors.Is(err, client.ErrCrashed) {
		t.Errorf("poll after the crash: %v, want ErrCrashed", err)
	}
}

// Commit before processing, crash after the commit: the poll op carries
// the proven commit and no processed record, its records listed as
// unprocessed; the crash follows.
func TestFranzConsumerCrashAfterCommitBeforeProcessing(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 10)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitBeforeProcessing})
	if err := c.Crash(client.CrashAfterCommit); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.Crashed() && time.Now().Before(deadline) {
		c.Poll(t.Context(), 7, 200*time.Millisecond)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	if len(clienttest.Processed(ops)) != 0 {
		t.Errorf("processed %v, want nothing", clienttest.Processed(ops))
	}
	var poll *histories.Op
	for i := range ops {
		if ops[i].F == histories.FPoll && ops[i].Type == histories.OK && ops[i].Extra[client.ExtraUnprocessed] != nil {
			poll = &ops[i]
		}
	}
	if poll == nil || len(clienttest.Committed([]histories.Op{*poll})) == 0 {
		t.Fatalf("no ok poll with a proven commit and unprocessed records: %v", ops)
	}
	if last := ops[len(ops)-1]; last.F != histories.FCrash {
		t.Errorf("last op %+v, want the crash", last)
	}
}

// kgo commits a poll's records only once the next poll begins, so an
// auto-committing consumer never passes a point between a commit of its
// poll's records and their processing: the crash there is refused rather
// than faked.
func TestFranzConsumerAutoRefusesCrashAfterCommit(t *testing.T) {
	e := startCluster(t)
	c := newTestConsumer(t, e, client.NewMemRecorder(), 1, client.ConsumerConfig{Commit: client.CommitAuto})
	if err := c.Crash(client.CrashAfterCommit); !errors.Is(err, client.ErrUnreachableCrashPoint) {
		t.Errorf("crash after commit: %v, want ErrUnreachableCrashPoint", err)
	}
	if err := c.Crash(client.CrashAnywhere); err != nil {
		t.Errorf("crash anywhere: %v", err)
	}
}

// A crash of an auto-committing consumer records what kgo proved, then an
// info commit of its committable position (a commit may have been in
// flight), then the crash. Nothing reaches a broker after it: the group's
// committed offsets stay what the ok commits said.
func TestFranzConsumerAutoCrashRecordsItsPosition(t *testing.T) {
	e := startCluster(t)
	produce(t, e, 20)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{Commit: client.CommitAuto, AutoCommitEach: time.Hour})
	clienttest.PollUntil(t, c, rec.Ops, 20)
	if err := c.Poll(t.Context(), 7, 100*time.Millisecond); err != nil { // the first polls' records become committable
		t.Fatal(err)
	}
	if err := c.Crash(client.CrashAnywhere); err != nil {
		t.Fatal(err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	n := len(ops)
	if n < 3 || ops[n-1].F != histories.FCrash || ops[n-2].F != histories.FCommit || ops[n-2].Type != histories.Info {
		t.Fatalf("last ops %v, want an info commit then the crash", ops[max(0, n-4):])
	}
	if got := ops[n-2].Mops[0].Offsets; got[0] != 10 || got[1] != 10 {
		t.Errorf("info commit of %v, want both keys at 10", got)
	}
	if got := clienttest.Committed(ops); len(got) != 0 {
		t.Errorf("ok commits %v with the interval an hour, want none", got)
	}
	// Another member reads from the group's committed offsets: all 20,
	// since nothing was committed.
	rec2 := client.NewMemRecorder()
	c2 := newTestConsumer(t, e, rec2, 2, client.ConsumerConfig{Commit: client.CommitAuto, Group: "g-auto", SessionTimeout: 6 * time.Second})
	clienttest.PollUntil(t, c2, rec2.Ops, 20)
}

// A crashed member goes silent, as a killed process does: its leave never
// reaches the coordinator, so the survivor is given its key only once the
// crashed member's session (6 s) has expired, and records the assignment
// on a poll. A clean close leaves at once.
func TestFranzConsumerCrashedMemberGoesSilent(t *testing.T) {
	for _, crash := range []bool{true, false} {
		name := map[bool]string{true: "crash", false: "close"}[crash]
		t.Run(name, func(t *testing.T) {
			e := startCluster(t)
			rec := client.NewMemRecorder()
			cfg := client.ConsumerConfig{Commit: client.CommitAfterProcessing, Group: "g", SessionTimeout: 6 * time.Second}
			c1 := newTestConsumer(t, e, rec, 1, cfg)
			c2 := newTestConsumer(t, e, rec, 2, cfg)
			owns := func(p int64) map[histories.Key]bool { return owned(rec.Ops(), p) }
			deadline := time.Now().Add(30 * time.Second)
			for (len(owns(1)) != 1 || len(owns(2)) != 1) && time.Now().Before(deadline) {
				c1.Poll(t.Context(), 7, 100*time.Millisecond)
				c2.Poll(t.Context(), 7, 100*time.Millisecond)
			}
			if len(owns(1)) != 1 || len(owns(2)) != 1 {
				t.Fatalf("members own %v and %v, want a key each", owns(1), owns(2))
			}
			start := time.Now()
			if crash {
				if err := c1.Crash(client.CrashAnywhere); err != nil {
					t.Fatal(err)
				}
			} else if err := c1.Close(); err != nil {
				t.Fatal(err)
			}
			for len(owns(2)) != 2 && time.Since(start) < 30*time.Second {
				c2.Poll(t.Context(), 7, 100*time.Millisecond)
			}
			took := time.Since(start)
			t.Logf("%s: the survivor owned both keys after %v", name, took.Round(time.Millisecond))
			switch {
			case len(owns(2)) != 2:
				t.Fatalf("survivor owns %v after 30s", owns(2))
			case crash && took < 4*time.Second:
				t.Errorf("survivor owned both keys %v after the crash, before the crashed member's 6 s session ended: it left", took)
			case !crash && took > 3*time.Second:
				t.Errorf("survivor owned both keys only %v after a clean close", took)
			}
			clienttest.CheckPaired(t, rec.Ops())
		})
	}
}

// owned is the keys process p owns after its recorded rebalances.
func owned(ops []histories.Op, p int64) map[histories.Key]bool {
	out := map[histories.Key]bool{}
	for _, o := range ops {
		if o.Process != p || o.Rebalance == nil {
			continue
		}
		for _, k := range o.Rebalance.Revoked {
			delete(out, k)
		}
		for _, k := range o.Rebalance.Assigned {
			out[k] = true
		}
	}
	return out
}

// A clean close while the coordinator holds the member's join (it waits
// for a crashed member's session to end) gives the leave leaveTimeout,
// then cuts the connections as an exiting process would, and says so: the
// run's end is not held for the silent member's session.
func TestFranzConsumerCloseDuringAHeldJoinGivesUp(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	cfg := client.ConsumerConfig{Commit: client.CommitAfterProcessing, Group: "g", SessionTimeout: 20 * time.Second, MaxPollInterval: 20 * time.Second}
	c1 := newTestConsumer(t, e, rec, 1, cfg)
	c2 := newTestConsumer(t, e, rec, 2, cfg)
	deadline := time.Now().Add(30 * time.Second)
	for (len(owned(rec.Ops(), 1)) != 1 || len(owned(rec.Ops(), 2)) != 1) && time.Now().Before(deadline) {
		c1.Poll(t.Context(), 7, 100*time.Millisecond)
		c2.Poll(t.Context(), 7, 100*time.Millisecond)
	}
	if err := c1.Crash(client.CrashAnywhere); err != nil {
		t.Fatal(err)
	}
	c3 := newTestConsumer(t, e, rec, 3, cfg) // its join starts a rebalance that waits for c1
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
		c2.Poll(t.Context(), 7, 100*time.Millisecond)
		c3.Poll(t.Context(), 7, 100*time.Millisecond)
	}
	start := time.Now()
	err := c2.Close()
	took := time.Since(start)
	t.Logf("close took %v: %v", took.Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "the leave did not finish") {
		t.Errorf("close during a held join: %v, want the leave given up", err)
	}
	if took > leaveTimeout+2*time.Second {
		t.Errorf("close took %v, want about the leave's %v", took, leaveTimeout)
	}
	clienttest.CheckPaired(t, rec.Ops())
}
