package client_test

import (
	"os"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// A run's client log holds one line per librdkafka log line: time (UTC),
// level, the worker whose client logged it (with its history processes),
// librdkafka's facility and instance name, and the message.
func ExampleLogWriter() {
	w := client.NewLogWriter(os.Stdout)
	w.Log(client.LogLine{
		Time: time.Date(2025, 6, 1, 12, 0, 0, 250000000, time.UTC), Worker: "consumer p3",
		Level: 3, Facility: "FAIL", Client: "kafkachaos-3#consumer-4",
		Message: "[thrd:127.0.0.1:9092/1]: 127.0.0.1:9092/1: Connect to ipv4#127.0.0.1:9092 failed: Connection refused",
	})
	// Output:
	// 2025-06-01T12:00:00.250000Z error   [consumer p3] FAIL kafkachaos-3#consumer-4: [thrd:127.0.0.1:9092/1]: 127.0.0.1:9092/1: Connect to ipv4#127.0.0.1:9092 failed: Connection refused
}
