package generators

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/model"
)

// Consumer group protocols (Consumer.GroupProtocol), as librdkafka's
// group.protocol spells them.
const (
	// GroupClassic is the JoinGroup/SyncGroup protocol with client-side
	// assignment: every member stops for a rebalance.
	GroupClassic = "classic"
	// GroupConsumer is KIP-848's ConsumerGroupHeartbeat protocol (Kafka
	// 4.0+): the coordinator assigns, and members give up and take
	// partitions incrementally. Heartbeats and sessions are the brokers'
	// (group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms,
	// 5 s and 45 s by default: cluster.broker-configs sets them), not the
	// scenario's session.timeout, which the consumers then ignore.
	GroupConsumer = "consumer"
)

var groupProtocols = []string{GroupClassic, GroupConsumer}

// Protocol is the consumers' group protocol, "" read as GroupClassic.
func (c Consumer) Protocol() string {
	if c.GroupProtocol == "" {
		return GroupClassic
	}
	return c.GroupProtocol
}

// validateGroupProtocol checks consumer.group-protocol, and refuses the
// consumer protocol where the harness cannot honour it: a crashed member
// is fenced at its coordinator with the classic protocol's requests
// (LeaveGroup, failed heartbeats), so a crash-consumer under KIP-848 would
// close politely and commit on its way out, unrecorded.
func (s *Scenario) validateGroupProtocol() error {
	p := s.Consumer.GroupProtocol
	if p != "" && !slices.Contains(groupProtocols, p) {
		return bad("consumer.group-protocol", "%q, want classic or consumer", p)
	}
	if s.Consumer.Protocol() != GroupConsumer {
		return nil
	}
	if s.Workload.Mode != ModeGroup || s.Workload.Consumers == 0 || s.Consumer.CommitStrategy == model.CommitTransactional {
		// with transactional copiers the plain consumers only watch, by assign
		return bad("consumer.group-protocol", "consumer applies to group consumers, and the workload has none (mode %s, %d consumers, commit %s)",
			s.Workload.Mode, s.Workload.Consumers, s.Consumer.CommitStrategy)
	}
	for i, f := range s.Nemesis {
		if f.Kind == KindCrashConsumer {
			return bad("consumer.group-protocol", "consumer: nemesis[%d] crashes a consumer, and the harness fences a crashed member with the classic protocol's requests only", i)
		}
	}
	return nil
}
