package franz

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

func startCluster(t testing.TB) *embedded.Provider {
	t.Helper()
	return embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 2}}})
}

func newTestProducer(t *testing.T, e *embedded.Provider, keys *client.KeyMap, rec client.Recorder, cfg client.ProducerConfig, lanes int) *Producer {
	t.Helper()
	p, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
		Recorder: rec, Processes: &client.Processes{}, Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// readBack returns the values of partition part of topic t by offset.
func readBack(t *testing.T, e *embedded.Provider, part int32, n int) map[int64]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(e.Bootstrap(), ",")...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"t": {part: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	got := map[int64]int64{}
	for len(got) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			v, err := strconv.ParseInt(string(r.Value), 10, 64)
			if err != nil {
				t.Fatalf("offset %d: value %q", r.Offset, r.Value)
			}
			got[r.Offset] = v
		})
	}
	return got
}

// acks=all and idempotent: every send is ok, at an offset of its own,
// where the log holds its value.
func TestFranzProducerAcksAllIdempotentReadsBack(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, client.SequentialKeys("t", 2), rec, client.ProducerConfig{Acks: "all", Idempotence: true}, 4)
	const n = 40
	done := make(chan histories.Type, n)
	for v := range int64(n) {
		if err := p.SendAsync(t.Context(), v%2, v, func(typ histories.Type) { done <- typ }); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		if typ := <-done; typ != histories.OK {
			t.Fatalf("a send ended %s: %v", typ, rec.Ops())
		}
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	logs := map[histories.Key]map[int64]int64{0: readBack(t, e, 0, n/2), 1: readBack(t, e, 1, n/2)}
	oks := 0
	for _, o := range ops {
		if o.Type != histories.OK {
			continue
		}
		oks++
		m := o.Mops[0]
		if got, ok := logs[m.Key][m.Offset]; !ok || got != m.Value {
			t.Errorf("op %d: value %d acknowledged at offset %d of key %d, which holds %d (present %v)", o.Index, m.Value, m.Offset, m.Key, got, ok)
		}
	}
	if oks != n || len(ops) != 2*n {
		t.Fatalf("%d ok of %d ops, want %d of %d", oks, len(ops), n, 2*n)
	}
}

// A key mapped to a partition the topic does not have: kgo fails the
// record before it is in any partition buffer, so nothing was sent.
func TestFranzProducerUnbufferedRecordIsFail(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	keys, err := client.NewKeyMap(map[histories.Key]client.TopicPartition{0: {Topic: "t", Partition: 7}})
	if err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, keys, rec, client.ProducerConfig{Acks: "all", Idempotence: true}, 1)
	if typ := clienttest.SendOne(t, p, 0, 1); typ != histories.Fail {
		t.Fatalf("send to a missing partition: %s (%v), want fail", typ, rec.Ops())
	}
	if rec.Ops()[1].Error == "" {
		t.Fatal("the fail op names no error")
	}
}

// The broker appends the record, then answers NOT_ENOUGH_REPLICAS_AFTER_APPEND
// and the client gives up (no retries): the record is in the log, so the
// send must be info, never fail.
func TestFranzProducerErrorAfterAppendIsInfo(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, client.SequentialKeys("t", 2), rec, client.ProducerConfig{Acks: "all", Retries: new(int)}, 1)
	if typ := clienttest.SendOne(t, p, 0, 1); typ != histories.OK {
		t.Fatalf("first send %s", typ)
	}
	f, err := e.ErrorAfterApply(cluster.RequestFault{Keys: []int16{0}}, kerr.NotEnoughReplicasAfterAppend.Code)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Remove()
	if typ := clienttest.SendOne(t, p, 0, 2); typ != histories.Info {
		t.Fatalf("send answered with an error after the append: %s (%v), want info", typ, rec.Ops())
	}
	f.Remove()
	if got := readBack(t, e, 0, 2); got[1] != 2 {
		t.Fatalf("log of key 0: %v, want value 2 at offset 1 (the fault must apply the record)", got)
	}
}

func TestFranzProducerCrash(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, client.SequentialKeys("t", 2), rec, client.ProducerConfig{Acks: "all", Idempotence: true}, 2)
	clienttest.CheckCrashMidSend(t, e, p)
	if err := p.SendAsync(t.Context(), 0, 3, nil); !errors.Is(err, client.ErrCrashed) {
		t.Fatalf("send after the crash: %v, want ErrCrashed", err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	if n := clienttest.CountF(ops, histories.FCrash); n != 2 {
		t.Fatalf("%d crash ops, want one per lane (2)", n)
	}
	if len(ops) != 6 {
		t.Fatalf("%d ops, want 6 (two sends paired, two crash ops): %v", len(ops), ops)
	}
}

func TestFranzProducerCloseCompletesEverySend(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, client.SequentialKeys("t", 2), rec, client.ProducerConfig{Acks: "all"}, 4)
	clienttest.CheckCloseCompletesEverySend(t, e, p, rec.Ops)
	if err := p.SendAsync(t.Context(), 0, 9, nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("send after close: %v, want ErrClosed", err)
	}
}
