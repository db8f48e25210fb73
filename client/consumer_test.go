package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
)

// produce sends values from..to-1 to key 0 and fails unless all are ok.
func produce(t *testing.T, e *cluster.Embedded, rec Recorder, procs *Processes, from, to int64) {
	t.Helper()
	p, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: ProducerConfig{Acks: "all"},
		Keys: SequentialKeys("t", 1), Recorder: rec, Processes: procs})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for v := from; v < to; v++ {
		if typ, err := p.Send(context.Background(), 0, v); typ != histories.OK {
			t.Fatalf("send %d: %s %v", v, typ, err)
		}
	}
}

func newGroupConsumer(t *testing.T, e *cluster.Embedded, rec Recorder, procs *Processes, commit CommitStrategy) *Consumer {
	t.Helper()
	c, err := NewConsumer(ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
		Process: procs.Next(), Fencer: e,
		Config: ConsumerConfig{Group: "g", Commit: commit, SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Subscribe(); err != nil {
		t.Fatal(err)
	}
	return c
}

// pollUntil polls until pred holds for the values c's process has read.
func pollUntil(t *testing.T, c *Consumer, rec *MemRecorder, pred func([]int64) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		err := c.Poll(context.Background(), 5, 200*time.Millisecond)
		if err == ErrCrashed {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if pred(polled(rec.Ops(), c.Process(), 0)) {
			return
		}
	}
	for _, o := range rec.Ops() {
		if o.F == histories.FCrash || o.Rebalance != nil || o.F == histories.FCommit {
			t.Logf("%+v %s", o, o.Value)
		}
	}
	t.Fatalf("process %d read %v before the deadline", c.Process(), polled(rec.Ops(), c.Process(), 0))
}

func TestAssignAndFinalReads(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 25)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := procs.Next()
	if err := FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec, Process: p, BatchSize: 10}); err != nil {
		t.Fatal(err)
	}
	ops := rec.Ops()
	checkPaired(t, ops)
	got := polled(ops, p, 0)
	want := make([]int64, 25)
	for i := range want {
		want[i] = int64(i)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("final reads read %v, want %v", got, want)
	}
	if opsOf(ops, p)[0].F != histories.FAssign {
		t.Fatalf("final reads did not start with an assign op: %+v", opsOf(ops, p)[0])
	}
	for _, o := range ops {
		if final := string(o.Extra[FinalExtra]) == "true"; final != (o.Process == p) {
			t.Fatalf("op %d of process %d: final marker %v, want it on the final reads' ops (process %d) only", o.Index, o.Process, final, p)
		}
	}
}

func TestFinalReadsNameWhatIsMissingOnTimeout(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	produce(t, e, rec, &Processes{}, 0, 3)
	d, err := e.Delay(cluster.RequestFault{Keys: []int16{1}}, 5*time.Second) // fetches
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err = FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec, Process: 9})
	want := "before the end of keys [0] (want offsets map[0:3]"
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("final reads under stalled fetches: %v, want an error naming key 0 and offset 3 (%q)", err, want)
	}
	if d.Hits() == 0 {
		t.Fatal("no fetch met the delay")
	}
}

// TestCommitBeforeProcessingCrashLosesRecords: a crash after the commit and
// before processing leaves the poll info, and the next member of the group
// starts after the records the dead one never processed.
func TestCommitBeforeProcessingCrashLosesRecords(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 10)
	a := newGroupConsumer(t, e, rec, procs, CommitBeforeProcessing)
	pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
	a.Crash(CrashAfterCommit)
	pollUntil(t, a, rec, func([]int64) bool { return false })
	if !a.Crashed() {
		t.Fatal("consumer did not crash at the commit")
	}
	ops := rec.Ops()
	checkPaired(t, ops)
	var infoPoll *histories.Op
	for i, o := range opsOf(ops, a.Process()) {
		if o.F == histories.FPoll && o.Type == histories.Info {
			infoPoll = &opsOf(ops, a.Process())[i]
		}
	}
	if infoPoll == nil || len(infoPoll.Mops) != 2 || infoPoll.Mops[0].F != histories.MCommit ||
		len(infoPoll.Mops[1].Records[0]) == 0 {
		t.Fatalf("want an info poll with a commit mop then the fetched-but-unprocessed records, got %+v", infoPoll)
	}
	lost := infoPoll.Mops[1].Records[0]

	produce(t, e, rec, procs, 10, 11)
	b := newGroupConsumer(t, e, rec, procs, CommitBeforeProcessing)
	pollUntil(t, b, rec, func(v []int64) bool { return slices.Contains(v, 10) })
	for _, r := range lost {
		if slices.Contains(polled(rec.Ops(), b.Process(), 0), r.Value) {
			t.Fatalf("value %d redelivered; commit-before-processing should have lost it", r.Value)
		}
	}
}

// TestCommitAfterProcessingCrashRedelivers: a crash after processing and
// before the commit makes the next member read the same records again.
func TestCommitAfterProcessingCrashRedelivers(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 10)
	a := newGroupConsumer(t, e, rec, procs, CommitAfterProcessing)
	a.Crash(CrashBeforeCommit)
	pollUntil(t, a, rec, func([]int64) bool { return false })
	first := polled(rec.Ops(), a.Process(), 0)
	if !a.Crashed() || len(first) == 0 {
		t.Fatalf("crashed %v after reading %v", a.Crashed(), first)
	}
	b := newGroupConsumer(t, e, rec, procs, CommitAfterProcessing)
	pollUntil(t, b, rec, func(v []int64) bool { return slices.Contains(v, 9) })
	if again := polled(rec.Ops(), b.Process(), 0); !slices.Contains(again, first[0]) {
		t.Fatalf("value %d processed by the crashed member not redelivered (second member read %v)", first[0], again)
	}
	checkPaired(t, rec.Ops())
}
