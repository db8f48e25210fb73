package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceKeys sends values from..to-1, value v to key v%keys, and fails
// unless all are ok.
func produceKeys(t *testing.T, e *embedded.Provider, keys int, from, to int64) {
	t.Helper()
	p, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: ProducerConfig{Acks: "all"},
		Keys: SequentialKeys("t", keys), Recorder: NewMemRecorder(), Processes: &Processes{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for v := from; v < to; v++ {
		if typ, err := p.Send(context.Background(), histories.Key(v%int64(keys)), v); typ != histories.OK {
			t.Fatalf("send %d: %s %v", v, typ, err)
		}
	}
}

// newConsumer subscribes a member of group "g" to keys 0..keys-1.
func newConsumer(t *testing.T, e *embedded.Provider, rec Recorder, procs *Processes, keys int, cfg ConsumerConfig, fencer MemberFencer) *Consumer {
	t.Helper()
	return subscribe(t, ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", keys), Recorder: rec,
		Process: procs.Next(), Fencer: fencer, Config: cfg})
}

// subscribe makes the consumer of opts a member of group "g", with a 1s
// session and a 3s max poll interval, and subscribes it; it is closed when
// the test ends.
func subscribe(t *testing.T, opts ConsumerOptions) *Consumer {
	t.Helper()
	opts.Config.Group, opts.Config.SessionTimeout, opts.Config.MaxPollInterval = "g", time.Second, 3*time.Second
	c, err := NewConsumer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Subscribe(); err != nil {
		t.Fatal(err)
	}
	return c
}

// pollKeys polls c until it has read n values in ok polls, over all keys.
func pollKeys(t *testing.T, c *Consumer, rec *MemRecorder, keys, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := c.Poll(context.Background(), 100, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		got := 0
		for k := range keys {
			got += len(polled(rec.Ops(), c.Process(), histories.Key(k)))
		}
		if got >= n {
			return
		}
	}
	t.Fatalf("process %d did not read %d values in time", c.Process(), n)
}

// groupCommitted reads group g's committed offsets of keys 0..keys-1 from
// the cluster, leaving out keys with none.
func groupCommitted(t *testing.T, e *embedded.Provider, keys int) map[histories.Key]int64 {
	t.Helper()
	cm, err := ConsumerConfig{Group: "g"}.ConfigMap(e.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kafka.NewConsumer(cm)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	km := SequentialKeys("t", keys)
	var tps []kafka.TopicPartition
	for _, k := range km.Keys() {
		tp, _ := km.TP(k)
		tps = append(tps, tp)
	}
	got, err := kc.Committed(tps, 5000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[histories.Key]int64{}
	for _, tp := range got {
		if k, ok := km.Key(tp); ok && tp.Offset >= 0 {
			out[k] = int64(tp.Offset)
		}
	}
	return out
}

// refuseCommits makes the coordinator refuse commits of the given
// partitions of topic t (all when none are given) until removed.
func refuseCommits(t *testing.T, e *embedded.Provider, partitions ...int32) *kfake.FaultHandle {
	t.Helper()
	h := e.Fake().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetCommit}, Topic: "t", Partitions: partitions,
		Err: kerr.OffsetMetadataTooLarge, Count: -1})
	t.Cleanup(h.Remove)
	return h
}

// commitOps returns the completed commit ops of process p.
func commitOps(ops []histories.Op, p int64) []histories.Op {
	var out []histories.Op
	for _, o := range clienttest.OpsOf(ops, p) {
		if o.F == histories.FCommit && o.Type != histories.Invoke {
			out = append(out, o)
		}
	}
	return out
}

// TestPartialCommitRecordsCommittedPartitions: the coordinator stores key
// 0's offset and refuses key 1's. librdkafka reports one error for the
// whole commit; the commit op must still be ok for key 0 (which the cluster
// holds) and name key 1 as not proven, not be recorded as a failure.
func TestPartialCommitRecordsCommittedPartitions(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	produceKeys(t, e, 2, 0, 10)
	h := refuseCommits(t, e, 1)
	c := newConsumer(t, e, rec, &Processes{}, 2, ConsumerConfig{Commit: CommitAfterProcessing}, e)
	pollKeys(t, c, rec, 2, 10)
	if h.Hits() == 0 {
		t.Fatal("no commit met the fault")
	}
	held := groupCommitted(t, e, 2)
	if _, ok := held[1]; ok || held[0] != 5 {
		t.Fatalf("cluster holds %v, want key 0 at 5 and nothing for key 1", held)
	}
	var last *histories.Op
	for _, o := range commitOps(rec.Ops(), c.Process()) {
		if o.Mops[0].Offsets[0] == 5 || o.Type != histories.OK {
			last = &o
		}
	}
	if last == nil || last.Type != histories.OK || len(last.Mops[0].Offsets) != 1 || last.Mops[0].Offsets[0] != 5 {
		t.Fatalf("want an ok commit op of key 0 at 5 only, got %+v", last)
	}
	var unc map[histories.Key]int64
	if err := json.Unmarshal(last.Extra[ExtraUncommitted], &unc); err != nil || unc[1] != 5 || last.Error == "" {
		t.Fatalf("commit op %d: uncommitted %s (%v), error %q; want key 1 at 5 and the error", last.Index, last.Extra[ExtraUncommitted], err, last.Error)
	}
	clienttest.CheckPaired(t, rec.Ops())
}

// TestRefusedCommitIsNotFail: a commit the coordinator refuses entirely
// with an error the per-attempt table calls definite is info: librdkafka
// retries commits, so an earlier attempt may have been stored.
func TestRefusedCommitIsNotFail(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	produceKeys(t, e, 1, 0, 3)
	refuseCommits(t, e)
	c := newConsumer(t, e, rec, &Processes{}, 1, ConsumerConfig{Commit: CommitAfterProcessing}, e)
	pollKeys(t, c, rec, 1, 3)
	commits := commitOps(rec.Ops(), c.Process())
	if len(commits) == 0 {
		t.Fatal("no commit op")
	}
	for _, o := range commits {
		if o.Type != histories.Info {
			t.Fatalf("refused commit op %d recorded %s, want info", o.Index, o.Type)
		}
	}
}

// TestCommitStoredDespiteTimeoutIsOK: the coordinator stores the commit and
// answers REQUEST_TIMED_OUT; the read-back proves it stored, so the commit
// op is ok.
func TestCommitStoredDespiteTimeoutIsOK(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	produceKeys(t, e, 1, 0, 3)
	h := e.Fake().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetCommit}, Topic: "t", Err: kerr.RequestTimedOut, Count: -1})
	t.Cleanup(h.Remove)
	c := newConsumer(t, e, rec, &Processes{}, 1, ConsumerConfig{Commit: CommitAfterProcessing}, e)
	pollKeys(t, c, rec, 1, 3)
	h.Remove()
	if held := groupCommitted(t, e, 1); held[0] != 3 {
		t.Fatalf("cluster holds %v, want key 0 at 3", held)
	}
	commits := commitOps(rec.Ops(), c.Process())
	if len(commits) == 0 || h.Hits() == 0 {
		t.Fatalf("%d commit ops, %d fault hits", len(commits), h.Hits())
	}
	if last := commits[len(commits)-1]; last.Type != histories.OK || last.Mops[0].Offsets[0] != 3 {
		t.Fatalf("stored commit recorded %+v, want ok at 3", last)
	}
}

// TestCommitBeforeProcessingPartialCommit: with key 1's commit refused,
// a commit-before-processing poll processes only key 0's records (whose
// commit is proven) and rewinds key 1, which is read again from its start
// once commits succeed: nothing is skipped, nothing processed uncommitted.
func TestCommitBeforeProcessingPartialCommit(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	produceKeys(t, e, 2, 0, 10)
	h := refuseCommits(t, e, 1)
	c := newConsumer(t, e, rec, &Processes{}, 2, ConsumerConfig{Commit: CommitBeforeProcessing}, e)
	// One poll that waits for all ten records, so that both keys are in
	// it: two shorter polls may each bring one key, and then no commit is
	// partial.
	if err := c.Poll(context.Background(), 10, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := polled(rec.Ops(), c.Process(), 1); len(got) > 0 {
		t.Fatalf("key 1 processed %v although its commit was refused", got)
	}
	var partial *histories.Op
	for _, o := range clienttest.OpsOf(rec.Ops(), c.Process()) {
		if o.F == histories.FPoll && o.Extra[ExtraUncommitted] != nil {
			partial = &o
		}
	}
	if partial == nil || partial.Type != histories.OK || partial.Mops[0].Offsets[0] != 5 || len(partial.Mops[0].Offsets) != 1 {
		t.Fatalf("want an ok poll whose commit mop has key 0 only, got %+v", partial)
	}
	h.Remove()
	pollKeys(t, c, rec, 2, 10)
	if got := polled(rec.Ops(), c.Process(), 1); !slices.Equal(got, []int64{1, 3, 5, 7, 9}) {
		t.Fatalf("key 1 read %v after commits recovered, want [1 3 5 7 9]", got)
	}
	clienttest.CheckPaired(t, rec.Ops())
}

// TestCrashRecordsAutoCommitsOfTheCrashedPoll: an auto-commit librdkafka
// reports during the poll a crash interrupts is recorded before the crash
// op.
func TestCrashRecordsAutoCommitsOfTheCrashedPoll(t *testing.T) {
	// The first auto-commit must come during the poll the crash
	// interrupts, after the short polls that read the records; on loaded
	// cores the short polls can outlast the interval, and then the
	// commit comes before: such an attempt is made again, with a fresh
	// cluster, a few times.
	for attempt := range 4 {
		if crashedPollCommitted(t, attempt) {
			return
		}
	}
	t.Fatal("in 4 attempts the first auto-commit always came before the crashed poll: the short polls outlasted auto.commit.interval")
}

// crashedPollCommitted runs TestCrashRecordsAutoCommitsOfTheCrashedPoll
// once; false when the first auto-commit came before the crashed poll.
func crashedPollCommitted(t *testing.T, attempt int) bool {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	produceKeys(t, e, 1, 0, 4)
	c := newConsumer(t, e, rec, &Processes{}, 1, ConsumerConfig{Commit: CommitAuto, AutoCommitEach: 500 * time.Millisecond}, e)
	for len(polled(rec.Ops(), c.Process(), 0)) < 4 {
		if err := c.Poll(context.Background(), 100, 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(commitOps(rec.Ops(), c.Process())); n > 0 {
		t.Logf("attempt %d: %d auto-commits before the crashed poll", attempt+1, n)
		return false
	}
	go func() {
		time.Sleep(time.Second)
		if err := c.Crash(CrashAnywhere); err != nil {
			t.Error(err)
		}
	}()
	if err := c.Poll(context.Background(), 100, 5*time.Second); !errors.Is(err, ErrCrashed) {
		t.Fatalf("poll during the crash: %v, want ErrCrashed", err)
	}
	ops := clienttest.OpsOf(rec.Ops(), c.Process())
	clienttest.CheckPaired(t, rec.Ops())
	n := len(ops)
	if ops[n-1].F != histories.FCrash || ops[n-2].F != histories.FCommit || ops[n-2].Type != histories.OK ||
		ops[n-2].Mops[0].Offsets[0] != 4 {
		t.Fatalf("want the crashed poll's auto-commit (key 0 at 4) just before the crash op, got %+v", ops[max(0, n-4):])
	}
	return true
}

// TestUnfencedAutoCommitCrashRecordsCloseCommit: without a fencer the crash
// closes the consumer, and librdkafka's close commits its positions. The
// history must say so (an info commit op before the crash op), and the
// cluster must hold what it says. With a fencer there is no such op.
func TestUnfencedAutoCommitCrashRecordsCloseCommit(t *testing.T) {
	for _, fenced := range []bool{false, true} {
		e := startCluster(t, 1)
		rec := NewMemRecorder()
		produceKeys(t, e, 1, 0, 5)
		var fencer MemberFencer
		if fenced {
			fencer = e
		}
		// Background commits every hour: only the close can commit.
		c := newConsumer(t, e, rec, &Processes{}, 1, ConsumerConfig{Commit: CommitAuto, AutoCommitEach: time.Hour}, fencer)
		pollKeys(t, c, rec, 1, 5)
		if err := c.Crash(CrashAnywhere); err != nil || !c.Crashed() {
			t.Fatalf("fenced %v: crash: %v, crashed %v", fenced, err, c.Crashed())
		}
		clienttest.CheckPaired(t, rec.Ops())
		commits := commitOps(rec.Ops(), c.Process())
		if fenced {
			if len(commits) != 0 {
				t.Fatalf("fenced crash recorded commits %+v", commits)
			}
			continue
		}
		if len(commits) != 1 || commits[0].Type != histories.Info || commits[0].Mops[0].Offsets[0] != 5 {
			t.Fatalf("unfenced crash: want one info commit of key 0 at 5, got %+v", commits)
		}
		deadline := time.Now().Add(10 * time.Second)
		for groupCommitted(t, e, 1)[0] != 5 {
			if time.Now().After(deadline) {
				t.Fatalf("cluster holds %v after the close, want key 0 at 5 (the recorded commit)", groupCommitted(t, e, 1))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestCrashPointRequests: a point the commit strategy never reaches is
// refused, and a CrashAnywhere after an earlier request that has not fired
// replaces it and fires.
func TestCrashPointRequests(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	c := newConsumer(t, e, rec, &Processes{}, 1, ConsumerConfig{Commit: CommitAfterProcessing}, e)
	if err := c.Crash(CrashAfterCommit); !errors.Is(err, ErrUnreachableCrashPoint) {
		t.Fatalf("after-commit on a commit-after-processing consumer: %v, want ErrUnreachableCrashPoint", err)
	}
	if err := c.Crash(CrashBeforeCommit); err != nil {
		t.Fatal(err)
	}
	// Nothing to read: the poll never reaches its commit.
	if err := c.Poll(context.Background(), 10, 100*time.Millisecond); err != nil || c.Ended() {
		t.Fatalf("poll with nothing to commit: %v, ended %v", err, c.Ended())
	}
	if err := c.Crash(CrashAnywhere); err != nil {
		t.Fatal(err)
	}
	if !c.Crashed() {
		t.Fatal("CrashAnywhere after an unfired before-commit request did not fire")
	}
	clienttest.CheckPaired(t, rec.Ops())
}
