package franz

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
)

func TestOptionsRefuseWhatKgoCannotRun(t *testing.T) {
	neg := -1
	for _, c := range []struct {
		name string
		cfg  client.ProducerConfig
		want string
	}{
		{"idempotence without acks=all", client.ProducerConfig{Acks: "1", Idempotence: true}, "requires acks=all"},
		{"unknown acks", client.ProducerConfig{Acks: "2"}, `acks = "2"`},
		{"negative retries", client.ProducerConfig{Retries: &neg}, "retries = -1"},
		{"librdkafka keys", client.ProducerConfig{Extra: map[string]any{"batch.size": 1}}, "[batch.size]"},
		{"a transactional id", client.ProducerConfig{TransactionalID: "x"}, "transactional"},
	} {
		_, err := Options(c.cfg, "localhost:9092")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
	for _, cfg := range []client.ProducerConfig{{Acks: "all", Idempotence: true}, {Acks: "0", MaxInFlight: 5}, {Acks: "1", Retries: new(int)}} {
		opts, err := Options(cfg, "localhost:9092")
		if err != nil {
			t.Errorf("%+v: %v", cfg, err)
			continue
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Errorf("%+v: kgo refuses the options: %v", cfg, err)
			continue
		}
		cl.Close()
	}
}

// The scenario's settings reach kgo as set; a zero linger is none, as for
// the other clients, not kgo's default of 10ms.
func TestOptionsReachKgo(t *testing.T) {
	retries := 3
	cfg := client.ProducerConfig{Acks: "1", Retries: &retries, MaxInFlight: 4, DeliveryTimeout: 20 * time.Second,
		RequestTimeout: 2 * time.Second}
	opts, err := Options(cfg, "localhost:9092")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, c := range []struct {
		name string
		opt  any
		want any
	}{
		{"linger", kgo.ProducerLinger, time.Duration(0)},
		{"acks", kgo.RequiredAcks, kgo.LeaderAck()},
		{"retries", kgo.RecordRetries, int64(3)},
		{"max in flight", kgo.MaxProduceRequestsInflightPerBroker, 4},
		{"delivery timeout", kgo.RecordDeliveryTimeout, 20 * time.Second},
		{"request timeout", kgo.ProduceRequestTimeout, 2 * time.Second},
		{"idempotence off", kgo.DisableIdempotentWrite, true},
	} {
		if got := cl.OptValue(c.opt); got != c.want {
			t.Errorf("%s: kgo has %v (%T), want %v (%T)", c.name, got, got, c.want, c.want)
		}
	}
}
