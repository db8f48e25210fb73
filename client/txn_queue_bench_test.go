package client

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
)

// BenchmarkTxnQueue measures one queue's committed transactions per second
// on the embedded cluster, recording to a JSONL history. Each transaction
// sends to two keys; "poll-first" and "poll-last" also poll once, before
// or after the sends, and read the previous transaction's records; in
// "poll-twice" the second of two polls finds nothing left and waits its
// 20ms, as an empty poll of the workload does.
func BenchmarkTxnQueue(b *testing.B) {
	poll := histories.Mop{F: histories.MPoll}
	for _, c := range []struct {
		name string
		plan func(v int64) []histories.Mop
	}{
		{"sends", func(v int64) []histories.Mop { return []histories.Mop{histories.Send(0, v), histories.Send(1, v)} }},
		{"poll-first", func(v int64) []histories.Mop {
			return []histories.Mop{poll, histories.Send(0, v), histories.Send(1, v)}
		}},
		{"poll-last", func(v int64) []histories.Mop {
			return []histories.Mop{histories.Send(0, v), histories.Send(1, v), poll}
		}},
		{"poll-twice", func(v int64) []histories.Mop {
			return []histories.Mop{poll, poll, histories.Send(0, v), histories.Send(1, v)}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			e := embedded.New()
			if err := e.Start(ctx, cluster.Spec{RunID: b.Name(), Topics: []cluster.TopicSpec{{Name: "q", Partitions: 2}}}); err != nil {
				b.Fatal(err)
			}
			defer e.Stop(ctx)
			w, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			rec := histories.NewRecorder(w, histories.RecorderConfig{})
			defer rec.Close()
			q, err := NewTxnQueue(ctx, TxnQueueOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("q", 2),
				TransactionalID: "bench", Recorder: rec})
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				if typ, err := q.Step(ctx, c.plan(int64(i)), 20, 20*time.Millisecond); typ != histories.OK {
					b.Fatalf("txn %d: %s %v", i, typ, err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "txns/s")
		})
	}
}
