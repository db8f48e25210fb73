package client

import (
	"fmt"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Group protocols (ConsumerConfig.GroupProtocol), librdkafka's names.
const (
	GroupClassic  = "classic"
	GroupConsumer = "consumer" // KIP-848: librdkafka 2.4+ against Kafka 4.0+
)

// setGroupProtocol puts c's group protocol into m. Under KIP-848 the
// brokers own the session, the heartbeat and the assignment, and
// librdkafka refuses to start with any of the classic protocol's settings
// for them, so those are taken out. A consumer without a group (assign
// mode, final reads) joins none, and keeps the default.
func (c ConsumerConfig) setGroupProtocol(m kafka.ConfigMap) error {
	switch c.GroupProtocol {
	case "", GroupClassic:
		return nil
	case GroupConsumer:
	default:
		return fmt.Errorf("consumer config: group protocol %q, want classic or consumer", c.GroupProtocol)
	}
	if c.Group == "" {
		return nil
	}
	m["group.protocol"] = GroupConsumer
	for _, k := range []string{"session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy", "group.protocol.type"} {
		delete(m, k)
	}
	return nil
}
