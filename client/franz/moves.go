package franz

import (
	"context"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// moves is what a group moved since its last take, by key: kgo's
// rebalance callbacks, in the harness's keys.
type moves struct {
	keys *client.KeyMap
	histories.Moves
}

func (m *moves) assigned(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	m.Assign(m.keysOf(parts)...)
}

func (m *moves) revoked(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	m.Revoke(m.keysOf(parts)...)
}

// keysOf are the harness's keys of kgo's topics and partitions.
func (m *moves) keysOf(parts map[string][]int32) []histories.Key {
	var out []histories.Key
	for t, ps := range parts {
		for _, p := range ps {
			if k, ok := m.keys.Key(kafka.TopicPartition{Topic: &t, Partition: p}); ok {
				out = append(out, k)
			}
		}
	}
	return out
}
