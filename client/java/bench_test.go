package java

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/franz"
)

// BenchmarkSendJavaBesideLibrdkafka sends the same number of values
// through the Java producer, the librdkafka one and the franz-go one, on
// one embedded cluster, with the same lanes and config, and reports each
// one's sends/s and the JVM's start.
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
