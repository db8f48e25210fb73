package model

import (
	"fmt"
	"strconv"
)

// Acks is the producer's acks setting.
type Acks int

const (
	// AcksNone (acks=0): the producer does not wait for any broker.
	AcksNone Acks = 0
	// AcksLeader (acks=1): the leader acknowledges after its own write.
	AcksLeader Acks = 1
	// AcksAll (acks=all or -1): the leader acknowledges once every in-sync
	// replica has the record.
	AcksAll Acks = -1
)

// String returns the Kafka property value: "0", "1" or "all".
func (a Acks) String() string {
	if a == AcksAll {
		return "all"
	}
	return strconv.Itoa(int(a))
}

// MarshalText writes the Kafka property value.
func (a Acks) MarshalText() ([]byte, error) {
	if a != AcksNone && a != AcksLeader && a != AcksAll {
		return nil, fmt.Errorf("model: acks %d is not 0, 1 or -1", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText accepts what Kafka accepts: "0", "1", "all" and "-1".
func (a *Acks) UnmarshalText(b []byte) error {
	switch string(b) {
	case "0":
		*a = AcksNone
	case "1":
		*a = AcksLeader
	case "all", "-1":
		*a = AcksAll
	default:
		return fmt.Errorf("model: acks %q is not one of 0, 1, all, -1", b)
	}
	return nil
}

// ProducerConfig is the part of a producer's configuration that decides its
// delivery guarantee. JSON names are the Kafka property names.
type ProducerConfig struct {
	Acks              Acks   `json:"acks"`
	Retries           int    `json:"retries"`
	EnableIdempotence bool   `json:"enable.idempotence"`
	MaxInFlight       int    `json:"max.in.flight.requests.per.connection"`
	TransactionalID   string `json:"transactional.id,omitempty"`
}

// maxIdempotentInFlight is the most in-flight requests for which the broker
// keeps sequence state: above it Kafka rejects an idempotent producer.
const maxIdempotentInFlight = 5

// kafkaMaxRetries is Integer.MAX_VALUE, Kafka's default retries since 2.1.
const kafkaMaxRetries = 2147483647

// DefaultProducer is the Java producer's default since Kafka 3.0 (KIP-679):
// acks=all, idempotence on, retries unbounded, five requests in flight.
func DefaultProducer() ProducerConfig {
	return ProducerConfig{Acks: AcksAll, Retries: kafkaMaxRetries, EnableIdempotence: true, MaxInFlight: maxIdempotentInFlight}
}

// LegacyDefaultProducer is the Java producer's default from Kafka 2.1 to 2.8
// (the era of the delivery-semantics claims the harness tests): acks=1, retries unbounded, no idempotence.
func LegacyDefaultProducer() ProducerConfig {
	return ProducerConfig{Acks: AcksLeader, Retries: kafkaMaxRetries, MaxInFlight: maxIdempotentInFlight}
}

// Transactional reports whether the producer uses transactions.
func (p ProducerConfig) Transactional() bool { return p.TransactionalID != "" }

// Idempotent reports whether the broker deduplicates the producer's retries:
// a transactional producer is always idempotent.
func (p ProducerConfig) Idempotent() bool { return p.EnableIdempotence || p.Transactional() }

// Validate rejects the combinations Kafka itself rejects, so that no
// guarantee is derived for a producer that could not start.
func (p ProducerConfig) Validate() error {
	if p.Acks != AcksNone && p.Acks != AcksLeader && p.Acks != AcksAll {
		return fmt.Errorf("model: producer acks=%d: want 0, 1 or -1 (all)", int(p.Acks))
	}
	if p.Retries < 0 || p.MaxInFlight < 0 {
		return fmt.Errorf("model: producer retries=%d, max.in.flight=%d: must not be negative", p.Retries, p.MaxInFlight)
	}
	if !p.Idempotent() {
		return nil
	}
	if p.Acks != AcksAll {
		return fmt.Errorf("model: idempotent or transactional producer with acks=%s: Kafka requires acks=all", p.Acks)
	}
	if p.Retries == 0 {
		return fmt.Errorf("model: idempotent or transactional producer with retries=0: Kafka requires retries > 0")
	}
	if p.MaxInFlight > maxIdempotentInFlight {
		return fmt.Errorf("model: idempotent or transactional producer with max.in.flight=%d: Kafka allows at most %d", p.MaxInFlight, maxIdempotentInFlight)
	}
	return nil
}

// TopicConfig is the part of a topic's configuration that decides whether an
// acknowledged record survives a broker failure.
type TopicConfig struct {
	ReplicationFactor     int  `json:"replication.factor"`
	MinInsyncReplicas     int  `json:"min.insync.replicas"`
	UncleanLeaderElection bool `json:"unclean.leader.election.enable"`
}

// Validate rejects impossible topic settings.
func (t TopicConfig) Validate() error {
	if t.ReplicationFactor < 1 || t.MinInsyncReplicas < 1 {
		return fmt.Errorf("model: topic replication.factor=%d, min.insync.replicas=%d: both must be at least 1", t.ReplicationFactor, t.MinInsyncReplicas)
	}
	return nil
}

// Isolation is the consumer's isolation.level.
type Isolation string

const (
	ReadUncommitted Isolation = "read_uncommitted"
	ReadCommitted   Isolation = "read_committed"
)

// CommitStrategy is when a consumer commits the offsets of what it consumed.
type CommitStrategy string

const (
	// CommitAuto: enable.auto.commit, offsets committed on a timer.
	CommitAuto CommitStrategy = "auto"
	// CommitBeforeProcessing: commit, then process.
	CommitBeforeProcessing CommitStrategy = "before-processing"
	// CommitAfterProcessing: process, then commit. A copier committing
	// this way (the at-least-once copier: send the copies, then commit the
	// input offsets) copies again what it sent before a crash.
	CommitAfterProcessing CommitStrategy = "after-processing"
	// CommitTransactional: the offsets go into the output transaction with
	// sendOffsetsToTransaction (consume-transform-produce).
	CommitTransactional CommitStrategy = "transactional"
)

// ConsumerConfig is the part of a consumer's configuration that decides its
// delivery guarantee.
type ConsumerConfig struct {
	IsolationLevel Isolation      `json:"isolation.level"`
	CommitStrategy CommitStrategy `json:"commit-strategy"`
}

// Validate rejects unknown isolation levels and strategies.
func (c ConsumerConfig) Validate() error {
	if c.IsolationLevel != ReadUncommitted && c.IsolationLevel != ReadCommitted {
		return fmt.Errorf("model: consumer isolation.level %q: want read_uncommitted or read_committed", c.IsolationLevel)
	}
	switch c.CommitStrategy {
	case CommitAuto, CommitBeforeProcessing, CommitAfterProcessing, CommitTransactional:
		return nil
	}
	return fmt.Errorf("model: consumer commit strategy %q: want auto, before-processing, after-processing or transactional", c.CommitStrategy)
}
