package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func newTestProducer(t *testing.T, e *embedded.Provider, rec Recorder, cfg ProducerConfig, lanes int) *Producer {
	t.Helper()
	p, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: SequentialKeys("t", 2),
		Recorder: rec, Processes: &Processes{}, Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProducerRecordsOffsets(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	p := newTestProducer(t, e, rec, ProducerConfig{Acks: "all", Idempotence: true}, 4)
	defer p.Close(context.Background())
	ctx := context.Background()
	var wg sync.WaitGroup
	for v := range int64(40) {
		wg.Add(1)
		if err := p.SendAsync(ctx, v%2, v, func(histories.Type) { wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	offsets := map[histories.Key]map[int64]bool{0: {}, 1: {}}
	oks := 0
	for _, o := range ops {
		if o.Type == histories.OK {
			oks++
			m := o.Mops[0]
			if m.Offset < 0 || offsets[m.Key][m.Offset] {
				t.Fatalf("op %d: offset %d of key %d missing or repeated", o.Index, m.Offset, m.Key)
			}
			offsets[m.Key][m.Offset] = true
		}
	}
	if oks != 40 || len(ops) != 80 {
		t.Fatalf("%d ok of %d ops, want 40 of 80", oks, len(ops))
	}
	if len(p.Processes()) != 4 {
		t.Fatalf("lanes %v", p.Processes())
	}
}

// TestProducerLostAckIsInfo: a write applied and then answered with an
// error must be recorded as info, never fail.
func TestProducerLostAckIsInfo(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	zero := 0
	p := newTestProducer(t, e, rec, ProducerConfig{Acks: "all", Retries: &zero}, 1)
	defer p.Close(context.Background())
	ctx := context.Background()
	if typ, _ := p.Send(ctx, 0, 1); typ != histories.OK {
		t.Fatalf("first send %s", typ)
	}
	f, err := e.ErrorAfterApply(cluster.RequestFault{Topic: "t"}, kerr.NotEnoughReplicasAfterAppend.Code)
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := p.Send(ctx, 0, 2)
	f.Remove()
	if typ != histories.Info {
		t.Fatalf("send under a lost ack recorded %s, want info", typ)
	}
}

func TestProducerCrash(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	p := newTestProducer(t, e, rec, ProducerConfig{Acks: "all"}, 2)
	ctx := context.Background()
	if typ, _ := p.Send(ctx, 0, 1); typ != histories.OK {
		t.Fatalf("send %s", typ)
	}
	// Hold produce requests so a send is in flight at the crash.
	d, err := e.Delay(cluster.RequestFault{Keys: []int16{0}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	res := make(chan histories.Type, 1)
	if err := p.SendAsync(ctx, 1, 2, func(t histories.Type) { res <- t }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	p.Crash()
	if typ := <-res; typ != histories.Info {
		t.Fatalf("in-flight send at crash: %s, want info", typ)
	}
	if _, err := p.Send(ctx, 0, 3); err != ErrCrashed {
		t.Fatalf("send after crash: %v, want ErrCrashed", err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	crashes := 0
	for _, o := range ops {
		if o.F == histories.FCrash {
			crashes++
		}
	}
	if crashes != 2 {
		t.Fatalf("%d crash ops, want one per lane (2)", crashes)
	}
}

// TestProducerRetriedSendWithDefiniteLastErrorIsInfo: the first attempt is
// appended and answered REQUEST_TIMED_OUT, the retry is refused with
// NOT_ENOUGH_REPLICAS (a definite error for that attempt alone). The record
// is in the log, so the send must not be fail.
func TestProducerRetriedSendWithDefiniteLastErrorIsInfo(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	one := 1
	p := newTestProducer(t, e, rec, ProducerConfig{Acks: "all", Retries: &one}, 1)
	defer p.Close(context.Background())
	ctx := context.Background()
	if typ, err := p.Send(ctx, 0, 1); typ != histories.OK {
		t.Fatalf("first send %s %v", typ, err)
	}
	// kfake checks faults in the order they were installed: the first
	// produce request meets the timeout, every later one the refusal.
	fake := e.Fake()
	timeout := fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Err: kerr.RequestTimedOut, Count: 1})
	refuse := fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "t", Err: kerr.NotEnoughReplicas, Count: -1})
	typ, err := p.Send(ctx, 0, 2)
	refuse.Remove()
	timeout.Remove()
	if err != nil {
		t.Fatal(err)
	}
	if timeout.Hits() != 1 || refuse.Hits() == 0 {
		t.Fatalf("fault hits: timeout %d refuse %d, want 1 and > 0", timeout.Hits(), refuse.Hits())
	}
	if got := logValues(t, e, 0); !slices.Contains(got, 2) {
		t.Fatalf("log of key 0 is %v: the first attempt did not land", got)
	}
	if typ != histories.Info {
		t.Fatalf("send whose first attempt landed recorded %s, want info", typ)
	}
	clienttest.CheckPaired(t, rec.Ops())
}

// logValues reads key k's log from the beginning with the final reads.
func logValues(t *testing.T, e *embedded.Provider, k histories.Key) []int64 {
	t.Helper()
	rec := NewMemRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := FinalReads(ctx, FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", int(k)+1), Recorder: rec, Process: 1000}); err != nil {
		t.Fatal(err)
	}
	return polled(rec.Ops(), 1000, k)
}

// TestProducerCloseCompletesEveryInvoke: a producer whose broker never
// answers is closed with a short ctx; every send it recorded still gets
// exactly one completion (info), and Close returns within its bounds.
func TestProducerCloseCompletesEveryInvoke(t *testing.T) {
	e := startCluster(t, 2)
	rec := NewMemRecorder()
	p := newTestProducer(t, e, rec, ProducerConfig{Acks: "all"}, 4)
	for _, n := range e.Nodes() {
		if err := e.Pause(context.Background(), n.ID); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Resume(context.Background(), n.ID) })
	}
	var wg sync.WaitGroup
	types := make(chan histories.Type, 4)
	for v := range int64(4) {
		wg.Add(1)
		if err := p.SendAsync(context.Background(), v%2, v, func(typ histories.Type) { types <- typ; wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	p.Close(ctx)
	if took := time.Since(start); took > closeGrace+2*time.Second {
		t.Fatalf("Close took %s", took)
	}
	waitBounded(t, &wg, 5*time.Second, "sends to complete after Close")
	close(types)
	for typ := range types {
		if typ != histories.Info {
			t.Fatalf("unflushed send completed %s, want info", typ)
		}
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	if len(ops) != 8 {
		t.Fatalf("%d ops, want 4 invokes and 4 completions: %+v", len(ops), ops)
	}
	if _, err := p.Send(context.Background(), 0, 9); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after close: %v, want ErrClosed", err)
	}
}

// TestProducerCrashRacesCompletions: sends complete while Crash runs. No
// completion may follow its lane's crash op, each invoke has one completion,
// and nothing blocks (a completion must not wait for a lane slot the crash
// has filled: none will free up). The recorder is slow to record ok completions, so that
// the crash often lands while one is being recorded.
func TestProducerCrashRacesCompletions(t *testing.T) {
	e := startCluster(t, 2)
	for i := range 30 {
		mem := NewMemRecorder()
		rec := slowOKRecorder{mem}
		p := newTestProducer(t, e, rec, ProducerConfig{Acks: "1"}, 3)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var wg sync.WaitGroup
		for lane := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for v := int64(lane) * 1000; ; v++ {
					if _, err := p.Send(ctx, v%2, v); err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(5+i%7) * time.Millisecond)
		p.Crash()
		waitBounded(t, &wg, 5*time.Second, fmt.Sprintf("iteration %d: senders to return after the crash", i))
		cancel()
		ops := mem.Ops()
		clienttest.CheckPaired(t, ops)
		checkEveryInvokeCompleted(t, ops)
	}
}

// checkEveryInvokeCompleted fails unless every invoke has a completion.
func checkEveryInvokeCompleted(t *testing.T, ops []histories.Op) {
	t.Helper()
	open := map[int64]int64{}
	for _, o := range ops {
		switch {
		case o.F == histories.FCrash:
		case o.Type == histories.Invoke:
			open[o.Process] = o.Index
		default:
			delete(open, o.Process)
		}
	}
	if len(open) > 0 {
		t.Fatalf("invokes without a completion (process: op index): %v", open)
	}
}

// waitBounded fails the test unless wg is done within d.
func waitBounded(t *testing.T, wg *sync.WaitGroup, d time.Duration, what string) {
	t.Helper()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(d):
		t.Fatalf("still waiting for %s after %s", what, d)
	}
}

// slowOKRecorder takes a millisecond to record an ok op, as a recorder
// writing to a slow disk would.
type slowOKRecorder struct{ *MemRecorder }

func (r slowOKRecorder) Record(op *histories.Op) *histories.Op {
	if op.Type == histories.OK {
		time.Sleep(time.Millisecond)
	}
	return r.MemRecorder.Record(op)
}
