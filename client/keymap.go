package client

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// TopicPartition is where a logical key lives.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// KeyMap maps logical keys to topic-partitions and back. It is immutable
// after NewKeyMap.
type KeyMap struct {
	fwd map[histories.Key]TopicPartition
	rev map[TopicPartition]histories.Key
}

// NewKeyMap builds a KeyMap; two keys on one partition are an error because
// the checkers need one log per key.
func NewKeyMap(m map[histories.Key]TopicPartition) (*KeyMap, error) {
	km := &KeyMap{fwd: make(map[histories.Key]TopicPartition, len(m)), rev: make(map[TopicPartition]histories.Key, len(m))}
	for k, tp := range m {
		if other, dup := km.rev[tp]; dup {
			return nil, fmt.Errorf("key map: keys %d and %d both map to %s/%d", other, k, tp.Topic, tp.Partition)
		}
		km.fwd[k], km.rev[tp] = tp, k
	}
	return km, nil
}

// SequentialKeys maps keys 0..n-1 to partitions 0..n-1 of topic.
func SequentialKeys(topic string, n int) *KeyMap {
	m := make(map[histories.Key]TopicPartition, n)
	for i := range n {
		m[histories.Key(i)] = TopicPartition{topic, int32(i)}
	}
	km, _ := NewKeyMap(m) // distinct partitions: cannot fail
	return km
}

// Keys returns every key in ascending order.
func (km *KeyMap) Keys() []histories.Key {
	out := make([]histories.Key, 0, len(km.fwd))
	for k := range km.fwd {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Topics returns the distinct topics, sorted.
func (km *KeyMap) Topics() []string {
	seen := map[string]bool{}
	var out []string
	for _, tp := range km.fwd {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			out = append(out, tp.Topic)
		}
	}
	sort.Strings(out)
	return out
}

// TP returns the librdkafka topic-partition of k.
func (km *KeyMap) TP(k histories.Key) (kafka.TopicPartition, bool) {
	tp, ok := km.fwd[k]
	if !ok {
		return kafka.TopicPartition{}, false
	}
	topic := tp.Topic
	return kafka.TopicPartition{Topic: &topic, Partition: tp.Partition}, true
}

// Key returns the key living at a librdkafka topic-partition.
func (km *KeyMap) Key(tp kafka.TopicPartition) (histories.Key, bool) {
	if tp.Topic == nil {
		return 0, false
	}
	k, ok := km.rev[TopicPartition{*tp.Topic, tp.Partition}]
	return k, ok
}

// encodeValue is the record value bytes of a workload value.
func encodeValue(v int64) []byte { return strconv.AppendInt(nil, v, 10) }

// decodeValue parses record value bytes written by encodeValue.
func decodeValue(b []byte) (int64, error) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("record value %q is not a workload value: %w", b, err)
	}
	return v, nil
}
