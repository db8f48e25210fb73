package client

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// benchWindow is the number of sends in flight, the same for both loops, so
// the ratio measures what recording costs and nothing else.
const benchWindow = 256

var benchConfig = ProducerConfig{Acks: "all", Linger: 5 * time.Millisecond}

// bareLoop produces n values through confluent-kafka-go alone, with at most
// benchWindow in flight, and returns the time it took.
func bareLoop(b *testing.B, bootstrap string, keys *KeyMap, n int) time.Duration {
	cm, _ := benchConfig.ConfigMap(bootstrap)
	p, err := kafka.NewProducer(cm)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	window := make(chan struct{}, benchWindow)
	done := make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			m := (<-p.Events()).(*kafka.Message)
			if m.TopicPartition.Error != nil {
				b.Error(m.TopicPartition.Error)
			}
			<-window
		}
		close(done)
	}()
	start := time.Now()
	for i := range n {
		window <- struct{}{}
		tp, _ := keys.TP(histories.Key(i % 4))
		if err := p.Produce(&kafka.Message{TopicPartition: tp, Value: encodeValue(int64(i))}, nil); err != nil {
			b.Fatal(err)
		}
	}
	<-done
	return time.Since(start)
}

// recordedLoop produces n values through a recording Producer writing a
// real JSONL history, and returns the time it took.
func recordedLoop(b *testing.B, bootstrap string, keys *KeyMap, n int) time.Duration {
	w, err := histories.Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	rec := histories.NewRecorder(w, histories.RecorderConfig{})
	defer rec.Close()
	p, err := NewProducer(ProducerOptions{Bootstrap: bootstrap, Config: benchConfig, Keys: keys, Recorder: rec,
		Processes: &Processes{}, Lanes: benchWindow})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	var wg sync.WaitGroup
	wg.Add(n)
	done := func(t histories.Type) {
		if t != histories.OK {
			b.Errorf("send completed %s", t)
		}
		wg.Done()
	}
	start := time.Now()
	for i := range n {
		if err := p.SendAsync(context.Background(), histories.Key(i%4), int64(i), done); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkRecordingOverhead compares a recording producer worker with a bare
// confluent-kafka-go loop against the same embedded cluster in the same run
// (alternating, to share any drift). ratio = recorded/bare throughput;
// the target is >= 0.9.
func BenchmarkRecordingOverhead(b *testing.B) {
	e := startCluster(b, 4)
	keys := SequentialKeys("t", 4)
	n := max(b.N, 1000)
	var bare, recorded time.Duration
	for range 2 {
		bare += bareLoop(b, e.Bootstrap(), keys, n)
		recorded += recordedLoop(b, e.Bootstrap(), keys, n)
	}
	b.ReportMetric(float64(2*n)/bare.Seconds(), "bare-msgs/s")
	b.ReportMetric(float64(2*n)/recorded.Seconds(), "recorded-msgs/s")
	b.ReportMetric(bare.Seconds()/recorded.Seconds(), "ratio")
}
