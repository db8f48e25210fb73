package cluster

import (
	"fmt"
	"io"
)

// Spec is what a run asks of its cluster.
type Spec struct {
	RunID   string // tags every resource the run creates
	RunDir  string // where broker logs and data go; "" keeps nothing
	Brokers int    // number of brokers; 0 means DefaultBrokers
	Topics  []TopicSpec
	// BrokerConfigs are broker-level settings (e.g. transaction.max.timeout.ms).
	BrokerConfigs map[string]string
	// Proxied routes the clients through a proxy per broker (Proxier), so
	// that faults can act on their connections: latency, delayed requests.
	// The brokers' own traffic and the harness's checks stay direct.
	Proxied bool
	// Clocks gives the brokers wall clocks the run can move (ClockSkewer),
	// for a run with clock faults; other runs keep the real clock, free.
	Clocks bool
	// LazyDisks puts each broker's data directory on lazyfs (DiskFaulter),
	// for a run with power-loss or disk faults; other runs write directly.
	LazyDisks bool
	// ReplicationProxied routes the brokers' own traffic (the inter-broker
	// listener: follower fetches) through a proxy per broker in the
	// harness (ReplicationProxier); a provider that cannot refuses it.
	ReplicationProxied bool
	// DynamicQuorum formats the controllers as a dynamic KRaft quorum
	// (KIP-853, Kafka 3.9+: controller.quorum.bootstrap.servers and
	// kafka-storage format --initial-controllers), whose voter set can
	// change while the cluster runs (VoterChanger); a provider that
	// cannot refuses it.
	DynamicQuorum bool
	// Log receives broker logs when set; otherwise they go to RunDir or
	// nowhere. Never stdout unless the caller asks.
	Log io.Writer
}

// DefaultBrokers is the cluster size when a Spec leaves Brokers at 0.
const DefaultBrokers = 3

// TopicSpec is one topic to create.
type TopicSpec struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16 // 0 means min(3, brokers)
	MinInsyncReplicas int   // 0 leaves the broker default
	Configs           map[string]string
}

// WithDefaults returns s with zero fields replaced by their defaults.
func (s Spec) WithDefaults() Spec {
	if s.Brokers == 0 {
		s.Brokers = DefaultBrokers
	}
	topics := make([]TopicSpec, len(s.Topics))
	for i, t := range s.Topics {
		if t.ReplicationFactor == 0 {
			t.ReplicationFactor = int16(min(3, s.Brokers))
		}
		topics[i] = t
	}
	s.Topics = topics
	return s
}

// Validate reports the first field of s that no provider could honour.
func (s Spec) Validate() error {
	if s.Brokers < 0 {
		return fmt.Errorf("cluster spec: brokers = %d, want >= 0", s.Brokers)
	}
	seen := make(map[string]bool)
	for i, t := range s.Topics {
		if err := t.validate(s.Brokers); err != nil {
			return fmt.Errorf("cluster spec: topics[%d]: %w", i, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("cluster spec: topics[%d]: duplicate topic %q", i, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

func (t TopicSpec) validate(brokers int) error {
	switch {
	case t.Name == "":
		return fmt.Errorf("name is empty")
	case t.Partitions < 1:
		return fmt.Errorf("topic %q: partitions = %d, want >= 1", t.Name, t.Partitions)
	case t.ReplicationFactor < 0:
		return fmt.Errorf("topic %q: replication factor = %d, want >= 0", t.Name, t.ReplicationFactor)
	case brokers > 0 && int(t.ReplicationFactor) > brokers:
		return fmt.Errorf("topic %q: replication factor %d exceeds %d brokers", t.Name, t.ReplicationFactor, brokers)
	case t.MinInsyncReplicas < 0:
		return fmt.Errorf("topic %q: min.insync.replicas = %d, want >= 0", t.Name, t.MinInsyncReplicas)
	case t.ReplicationFactor > 0 && t.MinInsyncReplicas > int(t.ReplicationFactor):
		return fmt.Errorf("topic %q: min.insync.replicas %d exceeds replication factor %d", t.Name, t.MinInsyncReplicas, t.ReplicationFactor)
	}
	return nil
}
