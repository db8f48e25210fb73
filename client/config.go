package client

import (
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// ProducerConfig is the producer side of a scenario, in the terms the seed
// text and model/ use. Zero fields keep librdkafka's defaults.
type ProducerConfig struct {
	Acks               string // "0", "1" or "all"
	Retries            *int   // nil keeps the default (effectively unbounded)
	Idempotence        bool
	MaxInFlight        int
	DeliveryTimeout    time.Duration // delivery.timeout.ms (message.timeout.ms)
	RequestTimeout     time.Duration // request.timeout.ms
	SocketTimeout      time.Duration // socket.timeout.ms
	Linger             time.Duration // linger.ms; 0 means 0, not the default 5ms
	TransactionalID    string        // set by the copier
	TransactionTimeout time.Duration // transaction.timeout.ms
	// Extra is passed to librdkafka verbatim, after the fields above.
	Extra map[string]any
}

// ConfigMap returns the librdkafka configuration for bootstrap.
func (c ProducerConfig) ConfigMap(bootstrap string) (*kafka.ConfigMap, error) {
	m := kafka.ConfigMap{
		"bootstrap.servers":  bootstrap,
		"linger.ms":          int(c.Linger / time.Millisecond),
		"enable.idempotence": c.Idempotence,
		"log_level":          3, // errors only, to stderr unless Logs route them (Logs.configure)
	}
	switch c.Acks {
	case "":
	case "0", "1", "all", "-1":
		m["acks"] = c.Acks
	default:
		return nil, fmt.Errorf("producer config: acks = %q, want 0, 1 or all", c.Acks)
	}
	if c.Retries != nil {
		if *c.Retries < 0 {
			return nil, fmt.Errorf("producer config: retries = %d, want >= 0", *c.Retries)
		}
		m["retries"] = *c.Retries
	}
	setPositive(m, "max.in.flight.requests.per.connection", c.MaxInFlight)
	setMillis(m, "delivery.timeout.ms", c.DeliveryTimeout)
	setMillis(m, "request.timeout.ms", c.RequestTimeout)
	setMillis(m, "socket.timeout.ms", c.SocketTimeout)
	setMillis(m, "transaction.timeout.ms", c.TransactionTimeout)
	if c.TransactionalID != "" {
		m["transactional.id"] = c.TransactionalID
	}
	for k, v := range c.Extra {
		m[k] = v
	}
	return &m, nil
}

// CommitStrategy is how a consumer commits its group offsets.
type CommitStrategy string

const (
	// CommitNone never commits (assign mode, final reads).
	CommitNone CommitStrategy = "none"
	// CommitAuto is librdkafka's enable.auto.commit: offsets of records
	// handed to the application are committed in the background.
	CommitAuto CommitStrategy = "auto"
	// CommitBeforeProcessing commits a poll's offsets before the poll
	// completes (is processed): a crash in between loses the records. The
	// commit is recorded as a commit mop of the poll op, before its poll
	// mop.
	CommitBeforeProcessing CommitStrategy = "before-processing"
	// CommitAfterProcessing completes the poll, then commits in a commit
	// op of its own: a crash in between redelivers the records.
	CommitAfterProcessing CommitStrategy = "after-processing"
)

// ConsumerConfig is the consumer side of a scenario.
type ConsumerConfig struct {
	Group          string // "" = assign mode
	Commit         CommitStrategy
	ReadCommitted  bool
	SessionTimeout time.Duration // session.timeout.ms for group members
	// MaxPollInterval is max.poll.interval.ms, which is also the rebalance
	// timeout: how long a rebalance waits for a member that went silent.
	MaxPollInterval time.Duration
	AutoCommitEach  time.Duration // auto.commit.interval.ms
	// GroupProtocol is group.protocol for a group member: "" or
	// GroupClassic, or GroupConsumer (KIP-848; group_protocol.go).
	GroupProtocol string
	Extra         map[string]any
}

// ConfigMap returns the librdkafka configuration for bootstrap.
func (c ConsumerConfig) ConfigMap(bootstrap string) (*kafka.ConfigMap, error) {
	group := c.Group
	if group == "" {
		// librdkafka needs a group.id even to assign; it is never
		// joined or committed to in assign mode.
		group = "kafkachaos-assign"
	}
	m := kafka.ConfigMap{
		"bootstrap.servers": bootstrap,
		"group.id":          group,
		"auto.offset.reset": "earliest",
		// Only the auto strategy lets librdkafka commit: with it off,
		// neither the background nor Close commits anything, so an
		// unfenced crash of a manual-strategy consumer commits nothing
		// on the way out (Consumer.recordCloseCommit covers auto).
		"enable.auto.commit": c.Commit == CommitAuto,
		// Offsets are stored by the worker as records reach it (see
		// Consumer.store), not by librdkafka: Close polls and drops
		// records itself, and with automatic storing its last commit
		// would cover records no worker ever saw.
		"enable.auto.offset.store": c.Commit != CommitAuto,
		"log_level":                3,
		// Keys of one poll op are read in one go: EOF events tell a
		// final read it has reached the end.
		"enable.partition.eof": true,
	}
	switch c.Commit {
	case "", CommitNone, CommitAuto, CommitBeforeProcessing, CommitAfterProcessing:
	default:
		return nil, fmt.Errorf("consumer config: commit = %q, want none, auto, before-processing or after-processing", c.Commit)
	}
	if c.Group == "" && c.Commit != "" && c.Commit != CommitNone {
		return nil, fmt.Errorf("consumer config: commit %q needs a group", c.Commit)
	}
	if c.ReadCommitted {
		m["isolation.level"] = "read_committed"
	} else {
		m["isolation.level"] = "read_uncommitted"
	}
	setMillis(m, "session.timeout.ms", c.SessionTimeout)
	// Heartbeats must come well within the session (Kafka advises a
	// third); librdkafka's default 3s would expire short sessions.
	setMillis(m, "heartbeat.interval.ms", c.SessionTimeout/3)
	setMillis(m, "auto.commit.interval.ms", c.AutoCommitEach)
	setMillis(m, "max.poll.interval.ms", c.MaxPollInterval)
	if err := c.setGroupProtocol(m); err != nil {
		return nil, err
	}
	for k, v := range c.Extra {
		m[k] = v
	}
	return &m, nil
}

func setPositive(m kafka.ConfigMap, k string, v int) {
	if v > 0 {
		m[k] = v
	}
}

func setMillis(m kafka.ConfigMap, k string, d time.Duration) {
	if d > 0 {
		m[k] = int(d / time.Millisecond)
	}
}

// mayResend reports whether librdkafka may send one record more than once:
// with retries (the default, effectively unbounded) or idempotence. Extra
// may override either, so any of their keys there counts as yes: calling a
// send info when it was certainly not written costs less than the reverse.
func (c ProducerConfig) mayResend() bool {
	for _, k := range []string{"retries", "message.send.max.retries", "enable.idempotence"} {
		if _, ok := c.Extra[k]; ok {
			return true
		}
	}
	return c.Idempotence || c.Retries == nil || *c.Retries > 0
}
