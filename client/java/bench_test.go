package java

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/franz"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// BenchmarkSendJavaBesideLibrdkafka sends the same number of values
// through the Java producer, the librdkafka one and the franz-go one, on
// one embedded cluster, with the same lanes and config, and reports each
// one's sends/s and the JVM's start.
func BenchmarkSendJavaBesideLibrdkafka(b *testing.B) {
	javatest.NeedJDK(b)
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
		b.ReportMetric(clienttest.SendRate(b, jp, n), "java-sends/s")
		lp, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(clienttest.SendRate(b, lp, n), "librdkafka-sends/s")
		fp, err := franz.NewProducer(franz.ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(clienttest.SendRate(b, fp, n), "franz-go-sends/s")
	}
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
	javatest.NeedJDK(b)
	e := startCluster(b)
	const n = 20000
	keys := client.SequentialKeys("t", 2)
	lp, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: client.ProducerConfig{Acks: "all"},
		Keys: keys, Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: 16})
	if err != nil {
		b.Fatal(err)
	}
	clienttest.SendRate(b, lp, n)
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

// BenchmarkTxnQueueJavaBesideLibrdkafka runs the same transactions (a
// poll, then sends to two keys) through a Java queue and a librdkafka one
// on one embedded cluster, and reports each one's committed transactions
// per second and the JVM's start.
func BenchmarkTxnQueueJavaBesideLibrdkafka(b *testing.B) {
	javatest.NeedJDK(b)
	e := startCluster(b)
	const n = 200
	keys := client.SequentialKeys("t", 2)
	plan := func(v int64) []histories.Mop {
		return []histories.Mop{{F: histories.MPoll}, histories.Send(0, v), histories.Send(1, v)}
	}
	rate := func(q interface {
		Step(context.Context, []histories.Mop, int, time.Duration) (histories.Type, error)
	}, base int64) float64 {
		start := time.Now()
		for i := range int64(n) {
			if typ, err := q.Step(b.Context(), plan(base+i), 20, 20*time.Millisecond); typ != histories.OK {
				b.Fatalf("txn %d: %s %v", i, typ, err)
			}
		}
		return n / time.Since(start).Seconds()
	}
	for i := int64(0); b.Loop(); i++ {
		opts := client.TxnQueueOptions{Bootstrap: e.Bootstrap(), Keys: keys, Recorder: client.NewMemRecorder()}
		opts.TransactionalID = "bench-java"
		jq, err := NewTxnQueue(b.Context(), TxnQueueOptions{TxnQueueOptions: opts})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(jq.Started.Seconds()*1000, "jvm-start-ms")
		b.ReportMetric(rate(jq, 4*n*i), "java-txns/s")
		jq.Close()
		opts.TransactionalID = "bench-librdkafka"
		lq, err := client.NewTxnQueue(b.Context(), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rate(lq, 4*n*i+2*n), "librdkafka-txns/s")
		lq.Close()
	}
}
