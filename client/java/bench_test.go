package java

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// sender is what both producers offer the benchmark.
type sender interface {
	SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error
	Close(ctx context.Context) error
}

// BenchmarkSendJavaBesideLibrdkafka sends the same number of values
// through the Java producer and the librdkafka one, on one embedded
// cluster, with the same lanes and config, and reports each one's sends/s
// and the JVM's start.
func BenchmarkSendJavaBesideLibrdkafka(b *testing.B) {
	needJDK(b)
	e := startCluster(b)
	const lanes, n = 16, 20000
	cfg := client.ProducerConfig{Acks: "all", Idempotence: true}
	keys := client.SequentialKeys("t", 2)
	for b.Loop() {
		jp, err := NewProducer(b.Context(), ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(jp.Started.Seconds()*1000, "jvm-start-ms")
		b.ReportMetric(rate(b, jp, n), "java-sends/s")
		lp, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rate(b, lp, n), "librdkafka-sends/s")
	}
}

// rate sends n values through p and returns ok sends per second; any send
// that is not ok fails the benchmark.
func rate(b *testing.B, p sender, n int) float64 {
	defer p.Close(context.Background())
	done := make(chan histories.Type, n)
	start := time.Now()
	for v := range n {
		if err := p.SendAsync(b.Context(), histories.Key(v%2), int64(v+1), func(t histories.Type) { done <- t }); err != nil {
			b.Fatal(err)
		}
	}
	for range n {
		if t := <-done; t != histories.OK {
			b.Fatalf("a send ended %s", t)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
