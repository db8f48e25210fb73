package client

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/twmb/franz-go/pkg/kerr"
)

func newTestProducer(t *testing.T, e *cluster.Embedded, rec Recorder, cfg ProducerConfig, lanes int) *Producer {
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
	checkPaired(t, ops)
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
	f, _ := e.ErrorAfterApply(cluster.RequestFault{Topic: "t"}, kerr.NotEnoughReplicasAfterAppend.Code)
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
	d, _ := e.Delay(cluster.RequestFault{Keys: []int16{0}}, time.Second)
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
	checkPaired(t, ops)
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
