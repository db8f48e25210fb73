package java

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copyRig is an embedded cluster whose topic "in" (keys 0, 1) the test's
// Java copiers copy to topic "out" (keys 2, 3), and the history they
// record.
type copyRig struct {
	t     *testing.T
	e     *embedded.Provider
	keys  *client.KeyMap
	pairs map[histories.Key]histories.Key
	rec   *client.MemRecorder
	procs client.Processes
}

func newCopyRig(t *testing.T) *copyRig {
	t.Helper()
	javatest.NeedJDK(t)
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "in", Partitions: 2}, {Name: "out", Partitions: 2}}})
	keys, err := client.NewKeyMap(map[histories.Key]client.TopicPartition{0: {Topic: "in"}, 1: {Topic: "in", Partition: 1},
		2: {Topic: "out"}, 3: {Topic: "out", Partition: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &copyRig{t: t, e: e, keys: keys, pairs: map[histories.Key]histories.Key{0: 2, 1: 3}, rec: client.NewMemRecorder()}
}

// produce sends values from..to-1, v to input key v%2 (so at offset v/2
// when the values start at 0).
func (r *copyRig) produce(from, to int64) {
	r.t.Helper()
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: r.e.Bootstrap(),
		Config: client.ProducerConfig{Acks: "all", Idempotence: true}, Keys: r.keys, Recorder: r.rec, Processes: &r.procs})
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Close(context.Background())
	for v := from; v < to; v++ {
		if typ := clienttest.SendOne(r.t, p, histories.Key(v%2), v); typ != histories.OK {
			r.t.Fatalf("send %d: %s", v, typ)
		}
	}
}

// copier opens a Java copier of group "copy" with transactional.id id
// (assign mode, no aborts), changed by edit; it is closed when the test
// ends.
func (r *copyRig) copier(id string, edit func(*client.CopierOptions)) *Copier {
	r.t.Helper()
	opts := client.CopierOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Pairs: r.pairs, Group: "copy",
		TransactionalID: id, Seed: 7, Producer: client.ProducerConfig{Acks: "all"},
		Consumer:    client.ConsumerConfig{SessionTimeout: 6 * time.Second, MaxPollInterval: 20 * time.Second},
		CallTimeout: 5 * time.Second, RetryBudget: 30 * time.Second, Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	cp, err := NewCopier(r.t.Context(), CopierOptions{CopierOptions: opts})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cp.Close)
	r.t.Logf("JVM of copier %s (process %d) started in %v", id, cp.Process(), cp.Started)
	return cp
}

// copied is the input values the group's ok txn ops read.
func (r *copyRig) copied() map[int64]int { return clienttest.Copied(r.rec.Ops()) }

// run steps cp until n values were copied or until (when set) says so,
// failing after 30 s; it returns Step's first error.
func (r *copyRig) run(cp *Copier, n int, until func() bool) error {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(r.copied()) < n && (until == nil || !until()) {
		if time.Now().After(deadline) {
			r.t.Fatalf("copied %d of %d values in 30s", len(r.copied()), n)
		}
		if _, err := cp.Step(r.t.Context(), 7, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// finish reads every key back read_committed (librdkafka), checks that the
// history is paired and the checker finds nothing, and returns the values
// each output key holds.
func (r *copyRig) finish() map[histories.Key][]int64 {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	final := r.procs.Next()
	err := client.FinalReads(ctx, client.FinalReadOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Recorder: r.rec,
		Process: final, ReadCommitted: true})
	if err != nil {
		r.t.Fatal(err)
	}
	ops := r.rec.Ops()
	clienttest.CheckPaired(r.t, ops)
	clienttest.CheckClean(r.t, ops)
	out := map[histories.Key][]int64{}
	for _, o := range clienttest.OpsOf(ops, final) {
		if o.Type == histories.OK && o.F == histories.FPoll {
			for _, k := range []histories.Key{2, 3} {
				for _, rec := range o.Mops[0].Records[k] {
					out[k] = append(out[k], rec.Value)
				}
			}
		}
	}
	return out
}

// committed reads the group's committed offsets of the input partitions
// from the broker (librdkafka).
func (r *copyRig) committed() map[int32]kafka.Offset {
	r.t.Helper()
	kc, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": r.e.Bootstrap(), "group.id": "copy"})
	if err != nil {
		r.t.Fatal(err)
	}
	defer kc.Close()
	in := "in"
	tps, err := kc.Committed([]kafka.TopicPartition{{Topic: &in, Partition: 0}, {Topic: &in, Partition: 1}}, 10000)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[int32]kafka.Offset{}
	for _, tp := range tps {
		out[tp.Partition] = tp.Offset
	}
	return out
}

// A Java copier whose transactions abort at random (a third) copies every
// input record exactly once, in both group modes: each txn op is ok or
// fail, the read_committed output holds each record's copy once and no
// poisoned value of an aborted one, the group's committed offsets are at
// the end of the input, and the checker finds nothing.
func TestJavaCopierExactlyOnceWithAborts(t *testing.T) {
	for _, subscribe := range []bool{false, true} {
		t.Run(map[bool]string{false: "assign", true: "subscribe"}[subscribe], func(t *testing.T) {
			const n = 40
			r := newCopyRig(t)
			r.produce(0, n)
			cp := r.copier("copier", func(o *client.CopierOptions) { o.Subscribe, o.AbortProbability = subscribe, 0.3 })
			if err := r.run(cp, n, nil); err != nil {
				t.Fatal(err)
			}
			ops := r.rec.Ops()
			committed, aborted := countTxns(ops, histories.OK), countTxns(ops, histories.Fail)
			if aborted == 0 || countTxns(ops, histories.Info) != 0 {
				t.Fatalf("%d txns committed, %d aborted, %d info: want aborts and no unknown outcome",
					committed, aborted, countTxns(ops, histories.Info))
			}
			poisoned := 0
			dice := rand.New(rand.NewSource(7))
			for _, o := range clienttest.OpsOf(ops, cp.Process()) {
				if o.F != histories.FTxn || o.Type == histories.Invoke || len(o.Mops) < 2 {
					continue
				}
				// client.Copier draws once per transaction with records
				if abort := dice.Float64() < 0.3; abort != strings.Contains(o.Error, client.ErrAbortedOnPurpose.Error()) {
					t.Errorf("txn %d (%s %q): the seed's dice say abort=%v", o.Index, o.Type, o.Error, abort)
				}
				for _, m := range o.Mops {
					if o.Type == histories.Fail && m.F == histories.MSend && m.Value < 0 {
						poisoned++
					}
				}
			}
			if poisoned == 0 {
				t.Fatal("no aborted transaction sent a poisoned value: the aborts proved nothing")
			}
			cp.Close()
			if got := r.committed(); got[0] != n/2 || got[1] != n/2 {
				t.Errorf("the group committed %v, want offset %d of both input partitions", got, n/2)
			}
			clienttest.CheckCopiedOnce(t, r.finish(), r.pairs, n)
			t.Logf("%d txns committed, %d aborted, %d poisoned values sent", committed, aborted, poisoned)
		})
	}
}

// A Java copier asked to crash is killed (SIGKILL) after its sends and
// offsets, before the commit: its txn op is info with sends that landed,
// and a crash op follows. A successor with the same transactional.id
// fences it, so the crashed transaction's copies are never visible, and
// the output is still exactly-once.
func TestJavaCopierCrashTakeover(t *testing.T) {
	const n = 30
	r := newCopyRig(t)
	r.produce(0, n)
	a := r.copier("copier", func(*client.CopierOptions) {})
	if err := r.run(a, n, func() bool { return len(r.copied()) > 0 }); err != nil {
		t.Fatal(err)
	}
	a.Crash()
	if err := r.run(a, n, nil); !errors.Is(err, client.ErrCrashed) || !a.Crashed() || !a.NeedsFencing() {
		t.Fatalf("step: %v; want the requested crash, and a copier that asks to be fenced", err)
	}
	if !strings.Contains(a.exit.Error(), "killed") {
		t.Fatalf("the crashed copier's JVM ended with %v, want a SIGKILL", a.exit)
	}
	aOps := clienttest.OpsOf(r.rec.Ops(), a.Process())
	last, txn := aOps[len(aOps)-1], aOps[len(aOps)-2]
	if last.F != histories.FCrash || !strings.Contains(string(last.Value), "SIGKILL") || txn.F != histories.FTxn || txn.Type != histories.Info {
		t.Fatalf("crashed copier ended with %+v then %+v; want an info txn, then its crash op (SIGKILL)", txn, last)
	}
	sent := 0
	for _, m := range txn.Mops {
		if m.F == histories.MSend && m.Offset >= 0 {
			sent++
		}
	}
	if sent == 0 || txn.Mops[len(txn.Mops)-1].F != histories.MCommit {
		t.Fatalf("the crashed txn's mops %+v: want sends that landed, then the offsets' commit mop", txn.Mops)
	}
	b := r.copier("copier", func(*client.CopierOptions) {})
	if err := r.run(b, n, nil); err != nil {
		t.Fatal(err)
	}
	b.Close()
	clienttest.CheckCopiedOnce(t, r.finish(), r.pairs, n)
	t.Logf("the crashed txn had %d sends that landed; none is visible", sent)
}

// A subscribed Java copier whose poll sees its partitions revoked by a
// second member's join, and then reads records, fails that step (the
// offsets it read are no longer its to commit); both then copy every
// record exactly once.
func TestJavaCopierRevokedStepFails(t *testing.T) {
	const n = 40
	r := newCopyRig(t)
	r.produce(0, n)
	subscribe := func(o *client.CopierOptions) { o.Subscribe = true }
	a := r.copier("copier-a", subscribe)
	if err := r.run(a, n, func() bool { return len(r.copied()) > 0 }); err != nil {
		t.Fatal(err)
	}
	b := r.copier("copier-b", subscribe)
	var wg sync.WaitGroup
	var typ histories.Type
	var err error
	wg.Go(func() { typ, err = a.Step(t.Context(), 1000, 8*time.Second) })
	if _, err := b.Step(t.Context(), 1000, 8*time.Second); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil || typ != histories.Fail {
		t.Fatalf("step across the rebalance: %s %v; want fail", typ, err)
	}
	aOps := clienttest.OpsOf(r.rec.Ops(), a.Process())
	if o := aOps[len(aOps)-1]; o.Rebalance == nil || len(o.Rebalance.Revoked) == 0 || !strings.Contains(o.Error, errRevokedInTxn.Error()) {
		t.Fatalf("the failed step %+v: want its revoked keys and the revocation as its error", o)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(r.copied()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("copied %d of %d values in 30s", len(r.copied()), n)
		}
		for _, cp := range []*Copier{a, b} {
			if _, err := cp.Step(t.Context(), 7, 200*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.Close()
	b.Close()
	clienttest.CheckCopiedOnce(t, r.finish(), r.pairs, n)
}

// The at-least-once mode is refused before any JVM starts, and so are
// options client.Copier refuses.
func TestJavaCopierRefusesBadOptions(t *testing.T) {
	keys := client.SequentialKeys("t", 2)
	base := client.CopierOptions{Keys: keys, Recorder: client.NewMemRecorder(), Group: "g", TransactionalID: "c",
		Pairs: map[histories.Key]histories.Key{0: 1}}
	for _, c := range []struct {
		edit func(*client.CopierOptions)
		want string
	}{
		{func(o *client.CopierOptions) { o.Mode = client.CopyAtLeastOnce }, `Mode = "at-least-once"`},
		{func(o *client.CopierOptions) { o.Group = "" }, "Group is required"},
		{func(o *client.CopierOptions) { o.Pairs = map[histories.Key]histories.Key{0: 5} }, "output key 5"},
	} {
		opts := base
		c.edit(&opts)
		if _, err := NewCopier(t.Context(), CopierOptions{CopierOptions: opts}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error naming %q", err, c.want)
		}
	}
}

// A Java copier whose JVM stops answering (SIGSTOP) does not hang the
// step: past the poll's bound and grace the JVM is killed, the txn op
// completes fail (no commit was asked for), a client-hang op follows, and
// the copier stops and asks to be fenced.
func TestJavaCopierHangIsAFinding(t *testing.T) {
	r := newCopyRig(t)
	cp := r.copier("copier-h", func(*client.CopierOptions) {})
	if err := cp.jvm.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	typ, err := cp.Step(t.Context(), 7, 200*time.Millisecond)
	if !errors.Is(err, client.ErrClientHang) || !errors.Is(err, client.ErrCopierStopped) || typ != histories.Fail {
		t.Fatalf("step: %s %v; want a fail txn and a hang that stops the copier", typ, err)
	}
	ops := clienttest.OpsOf(r.rec.Ops(), cp.Process())
	if last, txn := ops[len(ops)-1], ops[len(ops)-2]; last.F != histories.FClientHang || txn.F != histories.FTxn || txn.Type != histories.Fail {
		t.Fatalf("hung copier ended with %+v then %+v; want a fail txn, then its client-hang op", txn, last)
	}
	if _, err := cp.Step(t.Context(), 7, 0); !errors.Is(err, client.ErrCopierStopped) || !cp.NeedsFencing() {
		t.Fatalf("a hung copier stepped again (%v) or does not ask to be fenced", err)
	}
}

// A Java copier whose JVM exits unasked (here SIGTERM, from outside)
// ends its step as info, with a crash op naming how the JVM ended.
func TestJavaCopierJVMGoneIsACrash(t *testing.T) {
	r := newCopyRig(t)
	r.produce(0, 4)
	cp := r.copier("copier-g", func(*client.CopierOptions) {})
	if err := cp.jvm.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-cp.exited
	typ, err := cp.Step(t.Context(), 7, 200*time.Millisecond)
	if !errors.Is(err, client.ErrCrashed) || typ != histories.Info || cp.Crashed() || !cp.Ended() {
		t.Fatalf("step: %s %v (crashed %v, ended %v); want an info txn, an ended copier, and no requested crash",
			typ, err, cp.Crashed(), cp.Ended())
	}
	ops := clienttest.OpsOf(r.rec.Ops(), cp.Process())
	if last := ops[len(ops)-1]; last.F != histories.FCrash || !strings.Contains(string(last.Value), "jvm-exit") {
		t.Fatalf("the copier's last op is %+v, want a crash op with the JVM's exit", last)
	}
}
