package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produce sends values from..to-1 to key 0 and fails unless all are ok.
func produce(t *testing.T, e *embedded.Provider, rec Recorder, procs *Processes, from, to int64) {
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

// newGroupConsumer subscribes a member of group "g" to key 0.
func newGroupConsumer(t *testing.T, e *embedded.Provider, rec Recorder, procs *Processes, commit CommitStrategy) *Consumer {
	t.Helper()
	return subscribe(t, ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
		Process: procs.Next(), Fencer: e, Config: ConsumerConfig{Commit: commit}})
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
	clienttest.CheckPaired(t, ops)
	got := polled(ops, p, 0)
	want := make([]int64, 25)
	for i := range want {
		want[i] = int64(i)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("final reads read %v, want %v", got, want)
	}
	if clienttest.OpsOf(ops, p)[0].F != histories.FAssign {
		t.Fatalf("final reads did not start with an assign op: %+v", clienttest.OpsOf(ops, p)[0])
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
// before processing leaves the poll ok with its commit and nothing processed,
// and the next member of the group starts after the records the dead one
// never processed.
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
	clienttest.CheckPaired(t, ops)
	// The poll that crashed is ok with its proven commit and nothing
	// processed; what it fetched is in Extra "unprocessed".
	var crashed *histories.Op
	for i, o := range clienttest.OpsOf(ops, a.Process()) {
		if o.F == histories.FPoll && o.Extra[ExtraUnprocessed] != nil {
			crashed = &clienttest.OpsOf(ops, a.Process())[i]
		}
	}
	if crashed == nil || crashed.Type != histories.OK || len(crashed.Mops) != 2 || crashed.Mops[0].F != histories.MCommit ||
		len(crashed.Mops[1].Records) != 0 {
		t.Fatalf("want an ok poll with its commit mop and no records processed, got %+v", crashed)
	}
	var fetched map[string][][2]int64
	if err := json.Unmarshal(crashed.Extra[ExtraUnprocessed], &fetched); err != nil || len(fetched["0"]) == 0 {
		t.Fatalf("unprocessed %s (%v): want the fetched records of key 0", crashed.Extra[ExtraUnprocessed], err)
	}
	var lost []histories.Record
	for _, r := range fetched["0"] {
		lost = append(lost, histories.Record{Offset: r[0], Value: r[1]})
	}

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
	clienttest.CheckPaired(t, rec.Ops())
}

// hangingConsumer makes one consumer call block, ignoring its timeout, once
// armed and until released (or hangFor), as a librdkafka call stuck on its
// main thread or on a reply that never comes would. A released call closes
// the real handle (test hygiene: the consumer abandoned it) and returns.
type hangingConsumer struct {
	consumerHandle
	call    string
	armed   atomic.Bool
	release chan struct{}
}

func (h *hangingConsumer) hang(call string) bool {
	if call != h.call || !h.armed.Load() {
		return false
	}
	t := time.NewTimer(hangFor)
	defer t.Stop()
	select {
	case <-h.release:
	case <-t.C:
	}
	h.consumerHandle.Close()
	return true
}

func (h *hangingConsumer) Poll(ms int) kafka.Event {
	if h.hang("Poll") {
		return nil
	}
	return h.consumerHandle.Poll(ms)
}

func (h *hangingConsumer) CommitOffsets(tps []kafka.TopicPartition) ([]kafka.TopicPartition, error) {
	if h.hang("CommitOffsets") {
		return nil, errors.New("released")
	}
	return h.consumerHandle.CommitOffsets(tps)
}

func (h *hangingConsumer) Committed(tps []kafka.TopicPartition, ms int) ([]kafka.TopicPartition, error) {
	if h.hang("Committed") {
		return nil, errors.New("released")
	}
	return h.consumerHandle.Committed(tps, ms)
}

func (h *hangingConsumer) QueryWatermarkOffsets(topic string, p int32, ms int) (int64, int64, error) {
	if h.hang("QueryWatermarkOffsets") {
		return 0, 0, errors.New("released")
	}
	return h.consumerHandle.QueryWatermarkOffsets(topic, p, ms)
}

func (h *hangingConsumer) Close() error {
	if h.hang("Close") {
		return nil
	}
	return h.consumerHandle.Close()
}

// hangOn returns a hanging wrapper of call and the wrap option installing
// it; the hung call is released when the test ends.
func hangOn(t *testing.T, call string) (*hangingConsumer, func(consumerHandle) consumerHandle) {
	h := &hangingConsumer{call: call, release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	return h, func(kc consumerHandle) consumerHandle { h.consumerHandle = kc; return h }
}

// expectConsumerHang checks the ops of a process whose call hung: they
// end with the completion of the op that made the call (f, info, naming
// the hang), perhaps an info commit op (what an auto-committing handle may
// still commit), then the client-hang op with the call, its timeout, grace
// and how long it blocked. It returns the completion.
func expectConsumerHang(t *testing.T, ops []histories.Op, f, call string, timeout time.Duration) histories.Op {
	t.Helper()
	clienttest.CheckPaired(t, ops)
	if len(ops) < 2 {
		t.Fatalf("ops %+v: want a completion and a client-hang", ops)
	}
	hang, done := ops[len(ops)-1], ops[len(ops)-2]
	if done.F == histories.FCommit && done.Error == errAbandonedCommit.Error() && f != histories.FCommit {
		done = ops[len(ops)-4]
	}
	if done.F != f || done.Type != histories.Info || !strings.Contains(done.Error, "client hang: "+call) {
		t.Fatalf("completion %+v: want info %s naming the hang of %s", done, f, call)
	}
	v, err := hang.ClientHang()
	if err != nil || hang.F != histories.FClientHang || hang.Type != histories.Info {
		t.Fatalf("last op %+v (%v): want an info client-hang", hang, err)
	}
	if v.Call != call || v.TimeoutMs != timeout.Milliseconds() || v.GraceMs != HangGrace(timeout).Milliseconds() ||
		v.BlockedMs < v.TimeoutMs+v.GraceMs {
		t.Fatalf("client-hang value %+v: want call %s, timeout %v, grace %v, blocked >= both", v, call, timeout, HangGrace(timeout))
	}
	return done
}

// TestConsumerHangIsAFinding: each bounded consumer call that ignores its
// timeout is given up a grace after it; the op that made it completes as
// info naming the hang, a client-hang op ends the process, the worker gets
// an error matching ErrClientHang and ErrCrashed, nothing more is recorded
// on the process, and a new member of the group carries on.
func TestConsumerHangIsAFinding(t *testing.T) {
	t.Parallel()
	const callTimeout = 500 * time.Millisecond
	for _, tc := range []struct {
		name, call, f string
		commit        CommitStrategy
		timeout       time.Duration // the hung call's, as recorded
		refuse        bool          // commits time out (info), so they are read back
		close         bool          // the call is made by Close, not Poll
	}{
		{name: "Poll", call: "Poll", f: histories.FPoll, commit: CommitAfterProcessing, timeout: 50 * time.Millisecond},
		{name: "CommitOffsets", call: "CommitOffsets", f: histories.FCommit, commit: CommitAfterProcessing, timeout: callTimeout},
		{name: "CommitOffsets in poll", call: "CommitOffsets", f: histories.FPoll, commit: CommitBeforeProcessing, timeout: callTimeout},
		{name: "Committed read-back", call: "Committed", f: histories.FCommit, commit: CommitAfterProcessing, timeout: callTimeout, refuse: true},
		{name: "Close", call: "Close", f: histories.FCommit, commit: CommitAuto, timeout: callTimeout, close: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startCluster(t, 1)
			rec := NewMemRecorder()
			procs := &Processes{}
			produce(t, e, rec, procs, 0, 10)
			h, wrap := hangOn(t, tc.call)
			cfg := ConsumerConfig{Group: "g", Commit: tc.commit, SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}
			a, err := NewConsumer(ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
				Process: procs.Next(), Fencer: e, Config: cfg, callTimeout: callTimeout, wrap: wrap})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			if err := a.Subscribe(); err != nil {
				t.Fatal(err)
			}
			if tc.call == "Poll" || tc.close {
				pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
			}
			if tc.refuse {
				f := e.Fake().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetCommit}, Topic: "t", Err: kerr.RequestTimedOut, Count: -1})
				t.Cleanup(f.Remove)
			}
			h.armed.Store(true)
			start := time.Now()
			if tc.close {
				err = a.Close()
			} else {
				for err == nil && time.Since(start) < 20*time.Second {
					err = a.Poll(context.Background(), 5, 200*time.Millisecond)
				}
			}
			took := time.Since(start)
			if !errors.Is(err, ErrClientHang) || !errors.Is(err, ErrCrashed) || !a.Ended() {
				t.Fatalf("got %v (ended %v); want a hang that ends the consumer", err, a.Ended())
			}
			// A poll waits 200ms in 50ms Polls, then the call hangs.
			if limit := 200*time.Millisecond + tc.timeout + HangGrace(tc.timeout) + 2*time.Second; took > limit {
				t.Fatalf("gave up after %v, want within %v", took, limit)
			}
			ops := clienttest.OpsOf(rec.Ops(), a.Process())
			done := expectConsumerHang(t, ops, tc.f, tc.call, tc.timeout)
			if tc.close && (ops[len(ops)-2].F != histories.FCommit || len(done.Mops[0].Offsets) == 0) {
				t.Fatalf("ops %+v: want the close's commit of the stored offsets, info, before the client-hang", ops)
			}
			n := len(rec.Ops())
			if err := a.Poll(context.Background(), 5, 50*time.Millisecond); !errors.Is(err, ErrCrashed) {
				t.Fatalf("poll after the hang: %v, want ErrCrashed", err)
			}
			if err := a.Commit(map[histories.Key]int64{0: 1}); !errors.Is(err, ErrCrashed) {
				t.Fatalf("commit after the hang: %v, want ErrCrashed", err)
			}
			if err := a.Crash(CrashAnywhere); err != nil || a.Close() != nil || len(rec.Ops()) != n {
				t.Fatalf("crash or close after the hang recorded %+v", rec.Ops()[n:])
			}

			produce(t, e, rec, procs, 10, 15)
			b := newGroupConsumer(t, e, rec, procs, tc.commit)
			pollUntil(t, b, rec, func(v []int64) bool { return slices.Contains(v, 14) })
			clienttest.CheckPaired(t, rec.Ops())
		})
	}
}

// TestConsumerCrashDoesNotWaitForItsClose: a crash tears the handle down
// with a detached close; one that hangs holds nothing up, and the crash op
// stays the process's last.
func TestConsumerCrashDoesNotWaitForItsClose(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 3)
	h, wrap := hangOn(t, "Close")
	a, err := NewConsumer(ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
		Process: procs.Next(), Fencer: e, wrap: wrap,
		Config: ConsumerConfig{Group: "g", Commit: CommitAfterProcessing, SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
	h.armed.Store(true)
	start := time.Now()
	if err := a.Crash(CrashAnywhere); err != nil || !a.Crashed() {
		t.Fatalf("crash: %v, crashed %v", err, a.Crashed())
	}
	if took := time.Since(start); took > 6*time.Second { // the fence is given 5s
		t.Fatalf("crash took %v", took)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	ops := clienttest.OpsOf(rec.Ops(), a.Process())
	clienttest.CheckPaired(t, rec.Ops())
	if ops[len(ops)-1].F != histories.FCrash {
		t.Fatalf("last op %+v, want the crash", ops[len(ops)-1])
	}
}

// TestCrashWhoseDrainHangsEndsInTheHang: a crash drains the handle's
// reported commits with Poll(0); should that hang, the client-hang op is
// the process's last instead of the crash op.
func TestCrashWhoseDrainHangsEndsInTheHang(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 3)
	h, wrap := hangOn(t, "Poll")
	a, err := NewConsumer(ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
		Process: procs.Next(), Fencer: e, wrap: wrap,
		Config: ConsumerConfig{Group: "g", Commit: CommitAfterProcessing, SessionTimeout: time.Second, MaxPollInterval: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
	h.armed.Store(true)
	start := time.Now()
	if err := a.Crash(CrashAnywhere); err != nil || !a.Crashed() {
		t.Fatalf("crash: %v, crashed %v", err, a.Crashed())
	}
	if took, limit := time.Since(start), 5*time.Second+HangGrace(0)+2*time.Second; took > limit {
		t.Fatalf("crash took %v, want within %v", took, limit)
	}
	ops := clienttest.OpsOf(rec.Ops(), a.Process())
	clienttest.CheckPaired(t, rec.Ops())
	if last := ops[len(ops)-1]; last.F != histories.FClientHang || !strings.Contains(string(last.Value), `"call":"Poll"`) {
		t.Fatalf("last op %+v %s, want the client-hang of Poll", last, last.Value)
	}
	for _, o := range ops {
		if o.F == histories.FCrash {
			t.Fatalf("crash op %d besides the client-hang", o.Index)
		}
	}
}

// TestFinalReadsHangIsAnError: a final read's call that hangs ends the
// final reads within ctx plus a grace, with an error naming the call, after
// the process's client-hang op.
func TestFinalReadsHangIsAnError(t *testing.T) {
	t.Parallel()
	const callTimeout = 500 * time.Millisecond
	for _, tc := range []struct {
		call    string
		timeout time.Duration
	}{
		{"QueryWatermarkOffsets", callTimeout},
		{"Poll", 50 * time.Millisecond},
		{"Close", callTimeout},
	} {
		t.Run(tc.call, func(t *testing.T) {
			e := startCluster(t, 1)
			rec := NewMemRecorder()
			produce(t, e, rec, &Processes{}, 0, 3)
			h, wrap := hangOn(t, tc.call)
			h.armed.Store(true)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			err := FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec,
				Process: 9, callTimeout: callTimeout, wrap: wrap})
			took := time.Since(start)
			if !errors.Is(err, ErrClientHang) || !strings.Contains(err.Error(), "final reads") ||
				!strings.Contains(err.Error(), "client hang: "+tc.call) {
				t.Fatalf("final reads: %v; want an error naming the hang of %s", err, tc.call)
			}
			if limit := tc.timeout + HangGrace(tc.timeout) + 5*time.Second; took > limit {
				t.Fatalf("final reads returned after %v, want within %v", took, limit)
			}
			ops := clienttest.OpsOf(rec.Ops(), 9)
			clienttest.CheckPaired(t, rec.Ops())
			last := ops[len(ops)-1]
			v, err := last.ClientHang()
			if err != nil || last.F != histories.FClientHang ||
				v.Call != tc.call || v.TimeoutMs != tc.timeout.Milliseconds() || v.BlockedMs < v.TimeoutMs+v.GraceMs {
				t.Fatalf("last op %+v %s (%v): want the client-hang of %s", last, last.Value, err, tc.call)
			}
			if tc.call == "Poll" && ops[len(ops)-2].F != histories.FPoll {
				t.Fatalf("ops %+v: want the hung poll completed before the client-hang", ops)
			}
		})
	}
}

// TestFinalReadsCloseWithinCtx: a final reads whose ctx has expired still
// gives its close at least finalCloseMin, and no more than a grace past it.
func TestFinalReadsCloseWithinCtx(t *testing.T) {
	t.Parallel()
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	produce(t, e, rec, &Processes{}, 0, 3)
	h, wrap := hangOn(t, "Close")
	h.armed.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	d, err := e.Delay(cluster.RequestFault{Keys: []int16{1}}, 10*time.Second) // fetches: the reads run out of ctx
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	start := time.Now()
	err = FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec, Process: 9, wrap: wrap})
	if limit := 3*time.Second + finalCloseMin + HangGrace(finalCloseMin) + 2*time.Second; time.Since(start) > limit {
		t.Fatalf("final reads returned after %v, want within %v", time.Since(start), limit)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("final reads: %v, want the deadline", err)
	}
	ops := clienttest.OpsOf(rec.Ops(), 9)
	if last := ops[len(ops)-1]; last.F != histories.FClientHang || !strings.Contains(string(last.Value), `"call":"Close"`) {
		t.Fatalf("last op %+v %s, want the client-hang of Close", last, last.Value)
	}
	clienttest.CheckPaired(t, rec.Ops())
}

// TestFinalReadsReadPastALaterWatermark: a record appended after the final
// reads measured the high watermark and read up to it (as a follower that
// catches up after a heal raises it) is still read: the reads measure again
// and go round until a measure finds nothing new. The record is appended
// just before the second measure, when the first round has read to its end,
// so the first round cannot have fetched it; reads that stopped after one
// measure would never ask again and never read it.
func TestFinalReadsReadPastALaterWatermark(t *testing.T) {
	e := startCluster(t, 1)
	mem := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, mem, procs, 0, 3)
	late, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: ProducerConfig{Acks: "all"},
		Keys: SequentialKeys("t", 1), Recorder: mem, Processes: procs})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close(context.Background())
	measures := 0
	wrap := func(h consumerHandle) consumerHandle {
		return &beforeWatermark{consumerHandle: h, before: func() {
			if measures++; measures == 2 {
				if typ, err := late.Send(context.Background(), 0, 3); typ != histories.OK {
					t.Errorf("late send: %s %v", typ, err)
				}
			}
		}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const final = 99
	if err := FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: mem,
		Process: final, wrap: wrap}); err != nil {
		t.Fatal(err)
	}
	if measures < 2 {
		t.Fatalf("final reads measured the high watermark %d time(s): the late record was never appended", measures)
	}
	ops := mem.Ops()
	if got := polled(ops, final, 0); !slices.Contains(got, 3) {
		t.Fatalf("final reads read %v: the value appended after the first measure is missing", got)
	}
	rounds := map[string]bool{}
	for _, o := range clienttest.OpsOf(ops, final) {
		if r, ok := o.Extra["hwm-round"]; ok {
			rounds[string(r)] = true
		}
	}
	if !rounds["2"] {
		t.Fatalf("final polls' rounds %v: want a second round", rounds)
	}
}

// beforeWatermark calls before ahead of every high-watermark measure.
type beforeWatermark struct {
	consumerHandle
	before func()
}

func (h *beforeWatermark) QueryWatermarkOffsets(topic string, p int32, ms int) (int64, int64, error) {
	h.before()
	return h.consumerHandle.QueryWatermarkOffsets(topic, p, ms)
}
