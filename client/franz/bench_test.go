package franz

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
)

// BenchmarkSendFranzBesideLibrdkafka sends the same number of values
// through the franz-go producer and the librdkafka one, on one embedded
// cluster, with the same lanes and config (client/java's benchmark adds
// the Java client where a JDK is installed).
func BenchmarkSendFranzBesideLibrdkafka(b *testing.B) {
	e := startCluster(b)
	const lanes, n = 16, 20000
	cfg := client.ProducerConfig{Acks: "all", Idempotence: true}
	keys := client.SequentialKeys("t", 2)
	for b.Loop() {
		fp, err := NewProducer(ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(clienttest.SendRate(b, fp, n), "franz-go-sends/s")
		lp, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: keys,
			Recorder: client.NewMemRecorder(), Processes: &client.Processes{}, Lanes: lanes})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(clienttest.SendRate(b, lp, n), "librdkafka-sends/s")
	}
}
