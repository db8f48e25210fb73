package franz

import (
	"context"
	"sync"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// moves is what a group moved since its last take, by key.
type moves struct {
	keys  *client.KeyMap
	mu    sync.Mutex
	moved histories.Rebalance
}

func (m *moves) assigned(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	m.note(parts, func(k histories.Key) { m.moved.Assigned = append(m.moved.Assigned, k) })
}

func (m *moves) revoked(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	m.note(parts, func(k histories.Key) { m.moved.Revoked = append(m.moved.Revoked, k) })
}

func (m *moves) note(parts map[string][]int32, add func(histories.Key)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for t, ps := range parts {
		for _, p := range ps {
			if k, ok := m.keys.Key(kafka.TopicPartition{Topic: &t, Partition: p}); ok {
				add(k)
			}
		}
	}
}

// take is what moved since the last take, nil for nothing.
func (m *moves) take() *histories.Rebalance {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.moved.Assigned)+len(m.moved.Revoked) == 0 {
		return nil
	}
	r := m.moved
	m.moved = histories.Rebalance{}
	return &r
}
