package client

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
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
	"pgregory.net/rapid"
)

// TestRecordingMachine drives a producer and a group consumer against the
// embedded cluster with rapid: sends, polls, commits, crashes, clean closes
// and request faults in any order. After every step the history must be
// well formed so far (at most one completion per invoke, nothing after a
// process's crash); at the end every invoke must have exactly one
// completion, no send recorded `fail` may be in the log, and the group's
// committed offsets must be offsets the history says were (or may have
// been) committed.
func TestRecordingMachine(t *testing.T) {
	t.Parallel()
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		// Each draw starts a cluster and runs for seconds: a dozen by
		// default, more with -rapid.checks.
		if err := flag.Set("rapid.checks", "12"); err != nil {
			t.Fatal(err)
		}
		defer flag.Set("rapid.checks", f.DefValue)
	}
	rapid.Check(t, func(rt *rapid.T) {
		m := newRecordingMachine(rt)
		defer m.e.Stop(context.Background())
		rt.Repeat(m.actions())
		m.finish()
	})
}

// recordingMachine is the state of one drawn run.
type recordingMachine struct {
	rt     *rapid.T
	e      *embedded.Provider
	rec    *MemRecorder
	procs  *Processes
	keys   *KeyMap
	pcfg   ProducerConfig
	commit CommitStrategy
	p      *Producer
	c      *Consumer
	value  int64
	faults map[string]func() // installed request faults, by name: their removal
}

const machineGroup = "machine"

func newRecordingMachine(rt *rapid.T) *recordingMachine {
	e := embedded.New()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Start(ctx, cluster.Spec{RunID: "machine", Topics: []cluster.TopicSpec{{Name: "t", Partitions: 2}}}); err != nil {
		rt.Fatal(err)
	}
	idempotent := rapid.Bool().Draw(rt, "idempotence")
	retries := rapid.SampledFrom([]int{0, 2, 10}).Draw(rt, "retries")
	if idempotent {
		retries = max(retries, 1) // librdkafka refuses idempotence without retries
	}
	m := &recordingMachine{rt: rt, e: e, rec: NewMemRecorder(), procs: &Processes{}, keys: SequentialKeys("t", 2),
		pcfg: ProducerConfig{Acks: "all", Retries: &retries, Idempotence: idempotent,
			RequestTimeout: 300 * time.Millisecond, DeliveryTimeout: 2 * time.Second},
		commit: rapid.SampledFrom([]CommitStrategy{CommitAfterProcessing, CommitBeforeProcessing, CommitAuto}).Draw(rt, "commit"),
		faults: map[string]func(){}}
	m.openProducer()
	m.openConsumer()
	return m
}

func (m *recordingMachine) openProducer() {
	p, err := NewProducer(ProducerOptions{Bootstrap: m.e.Bootstrap(), Config: m.pcfg, Keys: m.keys,
		Recorder: m.rec, Processes: m.procs, Lanes: 3})
	if err != nil {
		m.rt.Fatal(err)
	}
	m.p = p
}

func (m *recordingMachine) openConsumer() {
	c, err := NewConsumer(ConsumerOptions{Bootstrap: m.e.Bootstrap(), Keys: m.keys, Recorder: m.rec,
		Process: m.procs.Next(), Fencer: m.e,
		Config: ConsumerConfig{Group: machineGroup, Commit: m.commit, SessionTimeout: time.Second,
			MaxPollInterval: 3 * time.Second, AutoCommitEach: 20 * time.Millisecond}})
	if err != nil {
		m.rt.Fatal(err)
	}
	if err := c.Subscribe(); err != nil && !errors.Is(err, ErrCrashed) {
		m.rt.Fatal(err)
	}
	m.c = c
}

func (m *recordingMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"":               func(*rapid.T) { m.checkSoFar() },
		"send":           m.send,
		"poll":           func(*rapid.T) { m.poll() },
		"commit":         func(*rapid.T) { m.commitRead() },
		"crash-producer": func(*rapid.T) { m.p.Crash(); m.openProducer() },
		"close-producer": func(*rapid.T) { m.closeProducer(200 * time.Millisecond); m.openProducer() },
		"crash-consumer": m.crashConsumer,
		"close-consumer": func(*rapid.T) { m.c.Close(); m.openConsumer() },
		"lost-ack":       func(*rapid.T) { m.toggle("lost-ack", m.lostAck) },
		"reject":         func(*rapid.T) { m.toggle("reject", m.reject) },
	}
}

func (m *recordingMachine) send(rt *rapid.T) {
	for range rapid.IntRange(1, 20).Draw(rt, "sends") {
		m.value++
		key := histories.Key(rand.IntN(2))
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := m.p.SendAsync(ctx, key, m.value, nil)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			rt.Fatalf("send %d: %v", m.value, err)
		}
	}
}

func (m *recordingMachine) poll() {
	err := m.c.Poll(context.Background(), 20, 30*time.Millisecond)
	switch {
	case errors.Is(err, ErrCrashed):
		m.openConsumer()
	case err != nil:
		m.rt.Fatalf("poll: %v", err)
	}
}

// commitRead commits, as one explicit commit op, the offsets after what
// the current consumer has read by ok polls.
func (m *recordingMachine) commitRead() {
	next := map[histories.Key]int64{}
	for _, op := range clienttest.OpsOf(m.rec.Ops(), m.c.Process()) {
		if op.F != histories.FPoll || op.Type != histories.OK {
			continue
		}
		for _, mop := range op.Mops {
			for k, rs := range mop.Records {
				if len(rs) > 0 {
					next[k] = rs[len(rs)-1].Offset + 1
				}
			}
		}
	}
	if len(next) == 0 {
		return
	}
	if err := m.c.Commit(next); err != nil && !errors.Is(err, ErrCrashed) {
		m.rt.Fatalf("commit: %v", err)
	}
}

func (m *recordingMachine) crashConsumer(*rapid.T) {
	if err := m.c.Crash(CrashAnywhere); err != nil {
		m.rt.Fatalf("crash: %v", err)
	}
	if m.c.Ended() {
		m.openConsumer()
	}
}

func (m *recordingMachine) closeProducer(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	m.p.Close(ctx)
}

// toggle installs the named fault, or removes it when installed.
func (m *recordingMachine) toggle(name string, install func() func()) {
	if remove, ok := m.faults[name]; ok {
		remove()
		delete(m.faults, name)
		return
	}
	m.faults[name] = install()
}

// lostAck applies produce requests, then answers REQUEST_TIMED_OUT: the
// client retries what is already in the log.
func (m *recordingMachine) lostAck() func() {
	f, err := m.e.ErrorAfterApply(cluster.RequestFault{Probability: 0.3}, kerr.RequestTimedOut.Code)
	if err != nil {
		m.rt.Fatal(err)
	}
	return f.Remove
}

// reject answers produce requests TOPIC_AUTHORIZATION_FAILED without
// applying them: a definite, non-retriable broker error, which after a
// lost acknowledgement answers a retry of a record already in the log.
func (m *recordingMachine) reject() func() {
	h := m.e.Fake().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.TopicAuthorizationFailed, Count: -1,
		When: func(kmsg.Request) bool { return rand.Float64() < 0.3 }})
	return h.Remove
}

// checkSoFar: each process alternates invoke and completion, a crash or
// client-hang op is its last, nothing completes what was not invoked.
func (m *recordingMachine) checkSoFar() {
	if err := wellFormed(m.rec.Ops(), false); err != nil {
		m.rt.Fatal(err)
	}
}

// finish heals, closes every worker and checks the whole history against
// the cluster.
func (m *recordingMachine) finish() {
	for name, remove := range m.faults {
		remove()
		delete(m.faults, name)
	}
	m.closeProducer(5 * time.Second)
	m.c.Close()
	ops := m.rec.Ops()
	if err := wellFormed(ops, true); err != nil {
		m.rt.Fatal(err)
	}
	log := m.readLog()
	for _, op := range ops {
		if op.F != histories.FSend || op.Type != histories.Fail {
			continue
		}
		for _, mop := range op.Mops {
			if log[mop.Key][mop.Value] {
				m.rt.Fatalf("op %d recorded send of %d to key %d as fail (%s), but the log has it", op.Index, mop.Value, mop.Key, op.Error)
			}
		}
	}
	m.checkCommitted(ops)
}

// readLog reads every key to its end with a plain consumer that records
// nowhere: key -> values in the log.
func (m *recordingMachine) readLog() map[histories.Key]map[int64]bool {
	out := map[histories.Key]map[int64]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := FinalReads(ctx, FinalReadOptions{Bootstrap: m.e.Bootstrap(), Keys: m.keys, Process: -2,
		Recorder: recorderFunc(func(op *histories.Op) {
			if op.F != histories.FPoll || op.Type != histories.OK {
				return
			}
			for _, mop := range op.Mops {
				for k, rs := range mop.Records {
					if out[k] == nil {
						out[k] = map[int64]bool{}
					}
					for _, r := range rs {
						out[k][r.Value] = true
					}
				}
			}
		})})
	if err != nil {
		m.rt.Fatal(err)
	}
	return out
}

// checkCommitted compares the group's committed offsets with the commits
// the history records: each must be one some commit op or mop (ok or
// info) named, and where the last commit of a key was ok and nothing
// uncertain followed, exactly that one.
func (m *recordingMachine) checkCommitted(ops []histories.Op) {
	named := map[histories.Key]map[int64]bool{}
	last := map[histories.Key]int64{}
	lastSure := map[histories.Key]bool{}
	for _, op := range ops {
		if op.Type == histories.Invoke || (op.F != histories.FCommit && op.F != histories.FPoll) {
			continue
		}
		for _, mop := range op.Mops {
			if mop.F != histories.MCommit {
				continue
			}
			for k, off := range mop.Offsets {
				if named[k] == nil {
					named[k] = map[int64]bool{}
				}
				named[k][off] = true
				last[k], lastSure[k] = off, op.Type == histories.OK
			}
		}
	}
	got, err := m.committed()
	if err != nil {
		m.rt.Fatal(err)
	}
	for k, off := range got {
		if !named[k][off] {
			m.rt.Fatalf("the group's committed offset of key %d is %d, which no recorded commit names (recorded %v)", k, off, named[k])
		}
		if lastSure[k] && off != last[k] {
			m.rt.Fatalf("the group's committed offset of key %d is %d, but the last recorded commit (ok) is %d", k, off, last[k])
		}
	}
}

// committed reads the group's committed offsets (OffsetFetch) with a
// consumer that never joins the group.
func (m *recordingMachine) committed() (map[histories.Key]int64, error) {
	kc, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": m.e.Bootstrap(), "group.id": machineGroup})
	if err != nil {
		return nil, err
	}
	// Bounded like every call of the workers: a hang here would be the
	// test's, not the harness's.
	defer Bounded("Consumer.Close", 10*time.Second, kc.Close)
	var tps []kafka.TopicPartition
	for _, k := range m.keys.Keys() {
		tp, _ := m.keys.TP(k)
		tps = append(tps, tp)
	}
	var res []kafka.TopicPartition
	err = Bounded("Consumer.Committed", 10*time.Second, func() (err error) {
		res, err = kc.Committed(tps, 10000)
		return err
	})
	var kerr kafka.Error
	if errors.As(err, &kerr) && kerr.Code() == kafka.ErrGroupIDNotFound {
		return nil, nil // kfake: a group that never committed does not exist
	}
	if err != nil {
		return nil, err
	}
	out := map[histories.Key]int64{}
	for _, tp := range res {
		if tp.Error != nil {
			return nil, fmt.Errorf("committed offset of %v: %w", tp, tp.Error)
		}
		if k, ok := m.keys.Key(tp); ok && tp.Offset >= 0 {
			out[k] = int64(tp.Offset)
		}
	}
	return out, nil
}

// wellFormed checks the history's shape per process; complete also
// requires every invoke to have its completion.
func wellFormed(ops []histories.Op, complete bool) error {
	open := map[int64]int64{} // process -> index of its open invoke
	dead := map[int64]bool{}
	for _, o := range ops {
		if dead[o.Process] {
			return fmt.Errorf("op %d (%s %s) of process %d after its crash", o.Index, o.Type, o.F, o.Process)
		}
		_, isOpen := open[o.Process]
		switch {
		case o.F == histories.FCrash || o.F == histories.FClientHang:
			if isOpen {
				return fmt.Errorf("%s op %d of process %d with op %d still open", o.F, o.Index, o.Process, open[o.Process])
			}
			dead[o.Process] = true
		case o.Type == histories.Invoke:
			if isOpen {
				return fmt.Errorf("op %d: process %d invokes with op %d still open", o.Index, o.Process, open[o.Process])
			}
			open[o.Process] = o.Index
		default:
			if !isOpen {
				return fmt.Errorf("op %d (%s %s): process %d completes nothing", o.Index, o.Type, o.F, o.Process)
			}
			delete(open, o.Process)
		}
	}
	if complete && len(open) > 0 {
		return fmt.Errorf("invokes never completed (process -> index): %v", open)
	}
	return nil
}

// recorderFunc is a Recorder that hands each op to a function.
type recorderFunc func(*histories.Op)

func (f recorderFunc) Record(op *histories.Op) *histories.Op { f(op); return op }
