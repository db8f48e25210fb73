package generators

import (
	"fmt"
	"strconv"
	"strings"
)

// KafkaNeed is a scenario field whose value needs a Kafka release of at
// least Min (major.minor) on the brokers, and why.
type KafkaNeed struct {
	Field, Min, Why string
}

// KafkaNeeds lists what s needs of the brokers' Kafka release: fault kinds
// whose effect can only be verified, the group protocol that is only
// served, and the dynamic quorum that is only formatted, from some release
// on. A provider that knows its release refuses
// s before it starts (runner.Injectable) rather than during the run.
func KafkaNeeds(s Scenario) []KafkaNeed {
	out := quorumNeeds(s)
	if s.Consumer.Protocol() == GroupConsumer {
		out = append(out, KafkaNeed{"consumer.group-protocol", "4.0",
			"KIP-848's consumer group protocol (ConsumerGroupHeartbeat) is served by Kafka 4.0+ brokers"})
	}
	for i, f := range s.Nemesis {
		if n := kindOf(f.Kind).kafka; n.Min != "" {
			n.Field = fmt.Sprintf("nemesis[%d].kind", i)
			out = append(out, n)
		}
	}
	return out
}

// KafkaAtLeast reports whether release version ("3.9.1", "4.0.0-rc1") is
// min ("4.0") or later, by major and minor; a version that does not start
// with major.minor is an error naming it.
func KafkaAtLeast(version, min string) (bool, error) {
	v, err := majorMinor(version)
	if err != nil {
		return false, err
	}
	m, err := majorMinor(min)
	if err != nil {
		return false, err
	}
	return v[0] > m[0] || (v[0] == m[0] && v[1] >= m[1]), nil
}

// majorMinor is version's first two numbers.
func majorMinor(version string) ([2]int, error) {
	parts := strings.SplitN(version, ".", 3)
	var mm [2]int
	if len(parts) < 2 {
		return mm, fmt.Errorf("Kafka version %q: want major.minor[.patch]", version)
	}
	for i := range mm {
		n, err := strconv.Atoi(strings.SplitN(parts[i], "-", 2)[0])
		if err != nil || n < 0 {
			return mm, fmt.Errorf("Kafka version %q: want major.minor[.patch]", version)
		}
		mm[i] = n
	}
	return mm, nil
}
