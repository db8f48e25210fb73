package client

import (
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// newConsumerErr is what librdkafka says of m when a consumer is created
// with it: its configuration is checked then, with no broker asked.
func newConsumerErr(t *testing.T, m *kafka.ConfigMap) error {
	t.Helper()
	kc, err := kafka.NewConsumer(m)
	if err == nil {
		kc.Close()
	}
	return err
}

// group.protocol=consumer reaches librdkafka for a group member, without
// the classic settings librdkafka refuses beside it: the same map with the
// session timeout put back is refused, which is why it is taken out.
func TestGroupProtocolConsumerDropsClassicSettings(t *testing.T) {
	c := ConsumerConfig{Group: "g", Commit: CommitAfterProcessing, SessionTimeout: time.Second, GroupProtocol: GroupConsumer}
	m, err := c.ConfigMap("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if (*m)["group.protocol"] != GroupConsumer {
		t.Errorf("group.protocol = %v, want consumer", (*m)["group.protocol"])
	}
	for _, k := range []string{"session.timeout.ms", "heartbeat.interval.ms"} {
		if v, ok := (*m)[k]; ok {
			t.Errorf("%s = %v is set under the consumer protocol", k, v)
		}
	}
	if err := newConsumerErr(t, m); err != nil {
		t.Errorf("librdkafka refused the consumer protocol's config: %v", err)
	}
	(*m)["session.timeout.ms"] = 1000
	if err := newConsumerErr(t, m); err == nil {
		t.Error("librdkafka took session.timeout.ms with group.protocol=consumer: the drop guards nothing")
	}
}

// The classic protocol (and "") keeps the session settings and names no
// protocol; a consumer without a group names none either; anything else
// is an error naming the value.
func TestGroupProtocolClassicAndAssign(t *testing.T) {
	for _, c := range []ConsumerConfig{
		{Group: "g", SessionTimeout: time.Second, GroupProtocol: GroupClassic},
		{Group: "g", SessionTimeout: time.Second},
	} {
		m, err := c.ConfigMap("127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := (*m)["group.protocol"]; ok || (*m)["session.timeout.ms"] != 1000 {
			t.Errorf("%q: group.protocol %v, session.timeout.ms %v: want none and 1000", c.GroupProtocol, (*m)["group.protocol"], (*m)["session.timeout.ms"])
		}
	}
	m, err := ConsumerConfig{GroupProtocol: GroupConsumer}.ConfigMap("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := (*m)["group.protocol"]; ok {
		t.Errorf("assign mode: group.protocol %v: want none", v)
	}
	if _, err := (ConsumerConfig{Group: "g", GroupProtocol: "eager"}).ConfigMap("x:1"); err == nil {
		t.Error(`group protocol "eager" accepted`)
	}
}
