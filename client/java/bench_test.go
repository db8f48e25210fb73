package java

import (
	"context"
	"sync/atomic"
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

// poller is what both consumers offer the benchmark.
type poller interface {
	Assign(keys []histories.Key) error
	Poll(ctx context.Context, max int, wait time.Duration) error
	Close() error
}

// countingRecorder counts the records of ok poll ops.
type countingRecorder struct{ records atomic.Int64 }

func (r *countingRecorder) Record(op *histories.Op) *histories.Op {
	if op.F == histories.FPoll && op.Type == histories.OK {
		for _, m := range op.Mops {
			for _, rs := range m.Records {
				r.records.Add(int64(len(rs)))
			}
		}
	}
	return op
}

// BenchmarkPollJavaBesideLibrdkafka reads the same values back through the
// Java consumer and the librdkafka one (assign mode, 500 records a poll at
// most), on one embedded cluster, and reports each one's records/s.
func BenchmarkPollJavaBesideLibrdkafka(b *testing.B) {
	needJDK(b)
	e := startCluster(b)
	const n = 20000
	keys := client.SequentialKeys("t", 2)
	lp, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: client.ProducerConfig{Acks: "all"},
		Keys: keys, Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: 16})
	if err != nil {
		b.Fatal(err)
	}
	rate(b, lp, n)
	for b.Loop() {
		jrec := &countingRecorder{}
		jc, err := NewConsumer(b.Context(), ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: keys, Recorder: jrec, Process: 1,
			Config: client.ConsumerConfig{Commit: client.CommitNone}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(pollRate(b, jc, jrec, n), "java-records/s")
		lrec := &countingRecorder{}
		lc, err := client.NewConsumer(client.ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: keys, Recorder: lrec, Process: 2,
			Config: client.ConsumerConfig{Commit: client.CommitNone}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(pollRate(b, lc, lrec, n), "librdkafka-records/s")
	}
}

// pollRate reads n records through c from the beginning and returns
// records per second.
func pollRate(b *testing.B, c poller, rec *countingRecorder, n int64) float64 {
	defer c.Close()
	if err := c.Assign([]histories.Key{0, 1}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for rec.records.Load() < n {
		if err := c.Poll(b.Context(), 500, 100*time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
