package client

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copyCounter counts the input records that ok steps of a copier read.
type copyCounter struct {
	Recorder
	n atomic.Int64
}

func (c *copyCounter) Record(op *histories.Op) *histories.Op {
	if op.Type == histories.OK && (op.F == histories.FTxn || op.F == histories.FPoll) {
		for _, m := range op.Mops {
			for _, recs := range m.Records {
				c.n.Add(int64(len(recs)))
			}
		}
	}
	return c.Recorder.Record(op)
}

// BenchmarkCopier measures copy throughput (records/s) of each mode with
// 100 records per step, recording to a JSONL history, on the embedded
// cluster. The input is produced beforehand, outside the timer.
func BenchmarkCopier(b *testing.B) {
	for _, mode := range []CopyMode{CopyTransactional, CopyAtLeastOnce} {
		b.Run(string(mode), func(b *testing.B) {
			e := embedded.New()
			ctx := context.Background()
			spec := cluster.Spec{RunID: b.Name(), Topics: []cluster.TopicSpec{{Name: "in", Partitions: 1}, {Name: "out", Partitions: 1}}}
			if err := e.Start(ctx, spec); err != nil {
				b.Fatal(err)
			}
			defer e.Stop(ctx)
			keys, _ := NewKeyMap(map[histories.Key]TopicPartition{0: {"in", 0}, 1: {"out", 0}})
			fillInput(b, e.Bootstrap(), keys, b.N)
			w, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			rec := &copyCounter{Recorder: histories.NewRecorder(w, histories.RecorderConfig{})}
			cp, err := NewCopier(ctx, CopierOptions{Bootstrap: e.Bootstrap(), Keys: keys, Pairs: map[histories.Key]histories.Key{0: 1},
				Group: "bench", Mode: mode, TransactionalID: "bench", Producer: ProducerConfig{Acks: "all"}, Recorder: rec})
			if err != nil {
				b.Fatal(err)
			}
			defer cp.Close()
			b.ResetTimer()
			start := time.Now()
			for rec.n.Load() < int64(b.N) {
				if _, err := cp.Step(ctx, 100, time.Second); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// fillInput produces values 0..n-1 to key 0 with a bare producer.
func fillInput(b *testing.B, bootstrap string, keys *KeyMap, n int) {
	cm, _ := ProducerConfig{Acks: "all", Linger: 5 * time.Millisecond}.ConfigMap(bootstrap)
	p, err := kafka.NewProducer(cm)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	tp, _ := keys.TP(0)
	reports := make(chan kafka.Event, n)
	for i := range n {
		for p.Produce(&kafka.Message{TopicPartition: tp, Value: encodeValue(int64(i))}, reports) != nil {
			time.Sleep(time.Millisecond) // queue full: wait for deliveries
		}
	}
	for range n {
		if m := (<-reports).(*kafka.Message); m.TopicPartition.Error != nil {
			b.Fatal(m.TopicPartition.Error)
		}
	}
}
