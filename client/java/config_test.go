package java

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

func TestPropertiesSpellTheScenarioInJavaTerms(t *testing.T) {
	retries := 0
	got, err := Properties(client.ProducerConfig{Acks: "1", Retries: &retries, MaxInFlight: 5,
		DeliveryTimeout: 20 * time.Second, RequestTimeout: 2 * time.Second, SocketTimeout: 3 * time.Second}, "b:9092")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"acks=1", "retries=0", "enable.idempotence=false", "linger.ms=0", "bootstrap.servers=b:9092",
		"max.in.flight.requests.per.connection=5", "delivery.timeout.ms=20000", "max.block.ms=20000",
		"request.timeout.ms=3000"} {
		if !slices.Contains(got, want) {
			t.Errorf("properties %v lack %s", got, want)
		}
	}
}

func TestPropertiesRefuseWhatTheWorkerCannotCarry(t *testing.T) {
	for _, c := range []client.ProducerConfig{
		{Acks: "2"},
		{TransactionalID: "t"},
		{Extra: map[string]any{"a=b": 1}},
		{Extra: map[string]any{"x": "1\n2"}},
	} {
		if _, err := Properties(c, "b:1"); err == nil || !strings.Contains(err.Error(), "java producer") {
			t.Errorf("Properties(%+v) error = %v, want a java producer error", c, err)
		}
	}
}

func TestLogLineReadsSlf4jSimple(t *testing.T) {
	l := logLine("java producer p0", "WARN org.apache.kafka.clients.NetworkClient - [Producer clientId=producer-1] Connection to node 2 could not be established.")
	if l.Level != 4 || l.Facility != "NetworkClient" || !strings.HasPrefix(l.Message, "[Producer clientId") {
		t.Errorf("logLine = %+v", l)
	}
	if l := logLine("w", "#  SIGSEGV (0xb) at pc=0x0"); l.Level != 3 || l.Message != "#  SIGSEGV (0xb) at pc=0x0" {
		t.Errorf("a line that is not slf4j's: %+v, want it whole at error level", l)
	}
}
