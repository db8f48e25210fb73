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

// validateGroupProtocol checks consumer.group-protocol: the consumer
// protocol needs group consumers.
//
// A consumer crash is honest under either protocol. An in-process member is
// fenced at its coordinator before its handle closes, so it commits
// nothing on its way out: by an admin LeaveGroup under the classic
// protocol, and under KIP-848 by the leave heartbeat (member epoch -1)
// sent for its member id (internal/groupfence). With
// workload.client-processes the crash is a SIGKILL of the worker process,
// which sends nothing more, and no fence is needed: the brokers evict the
// member once group.consumer.session.timeout.ms passes without its
// heartbeat (45 s by default, and never below
// group.consumer.min.session.timeout.ms, 45 s too: cluster.broker-configs
// lowers both), and its partitions wait that long for a new owner.
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
	return nil
}
