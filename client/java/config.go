package java

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// Properties are the Java producer's configs (key=value) for c: the same
// choices the librdkafka producer is given, in the Java client's terms.
//
//   - enable.idempotence is always set: the Java client's default (true
//     from 3.0, unless acks or retries conflict) must not decide it.
//   - request.timeout.ms is the Java client's one timeout of a request: the
//     broker's ack timeout and the client's wait for the answer. It is
//     c.SocketTimeout when set (librdkafka's wait for an answer), else
//     c.RequestTimeout.
//   - max.block.ms, how long send() may wait for metadata or buffer space,
//     is the delivery timeout when set: send() must not outlast it.
//   - Extra is passed verbatim, after the fields.
func Properties(c client.ProducerConfig, bootstrap string) ([]string, error) {
	if c.TransactionalID != "" {
		return nil, fmt.Errorf("java producer: transactional.id %q: transactions run in the txn queue (TxnProperties)", c.TransactionalID)
	}
	m, err := producerMap(c, bootstrap)
	if err != nil {
		return nil, err
	}
	return properties(m, c.Extra, "java producer")
}

// TxnProperties are the configs of a txn queue's transactional producer
// with id: Properties' choices for c, with idempotence and acks=all
// always, the transaction timeout when c sets one, and max.block.ms (how
// long initTransactions, commitTransaction and abortTransaction may block
// before a TimeoutException) callTimeout.
func TxnProperties(c client.ProducerConfig, bootstrap, id string, callTimeout time.Duration) ([]string, error) {
	c.Idempotence, c.Acks = true, "all"
	m, err := producerMap(c, bootstrap)
	if err != nil {
		return nil, err
	}
	m["transactional.id"] = id
	setMillis(m, "transaction.timeout.ms", c.TransactionTimeout)
	setMillis(m, "max.block.ms", callTimeout)
	return properties(m, c.Extra, "java txn queue")
}

// producerMap is a producer's configs for c, before its Extra.
func producerMap(c client.ProducerConfig, bootstrap string) (map[string]string, error) {
	m := map[string]string{
		"bootstrap.servers":  bootstrap,
		"linger.ms":          millis(c.Linger),
		"enable.idempotence": strconv.FormatBool(c.Idempotence),
	}
	switch c.Acks {
	case "":
	case "0", "1", "all", "-1":
		m["acks"] = c.Acks
	default:
		return nil, fmt.Errorf("java producer: acks = %q, want 0, 1 or all", c.Acks)
	}
	if c.Retries != nil {
		if *c.Retries < 0 {
			return nil, fmt.Errorf("java producer: retries = %d, want >= 0", *c.Retries)
		}
		m["retries"] = strconv.Itoa(*c.Retries)
	}
	if c.MaxInFlight > 0 {
		m["max.in.flight.requests.per.connection"] = strconv.Itoa(c.MaxInFlight)
	}
	if c.DeliveryTimeout > 0 {
		m["delivery.timeout.ms"] = millis(c.DeliveryTimeout)
		m["max.block.ms"] = millis(c.DeliveryTimeout)
	}
	if t := cmp.Or(c.SocketTimeout, c.RequestTimeout); t > 0 {
		m["request.timeout.ms"] = millis(t)
	}
	return m, nil
}

// ConsumerProperties are the Java consumer's configs (key=value) for c,
// for process clientID: the choices client.ConsumerConfig gives
// librdkafka, in the Java client's terms.
//
//   - Reading starts at the earliest offset (auto.offset.reset).
//   - Only the auto strategy lets the client commit (enable.auto.commit),
//     and it installs the worker's CommitWatch interceptor, which reports
//     every commit the client proves.
//   - Under group.protocol=consumer (KIP-848) the broker owns the session
//     and the heartbeat: the Java client refuses session.timeout.ms and
//     heartbeat.interval.ms then, so they are left out.
//   - Assign mode (no group) sets no group.id: the Java client needs none
//     to assign, and commits nothing without one.
//   - Extra is passed verbatim, after the fields.
func ConsumerProperties(c client.ConsumerConfig, bootstrap, clientID string) ([]string, error) {
	switch c.Commit {
	case "", client.CommitNone, client.CommitAuto, client.CommitBeforeProcessing, client.CommitAfterProcessing:
	default:
		return nil, fmt.Errorf("java consumer: commit = %q, want none, auto, before-processing or after-processing (transactional is not built yet)", c.Commit)
	}
	auto := c.Commit == client.CommitAuto
	if c.Group == "" && c.Commit != "" && c.Commit != client.CommitNone {
		return nil, fmt.Errorf("java consumer: commit %q needs a group", c.Commit)
	}
	m := map[string]string{
		"bootstrap.servers":  bootstrap,
		"client.id":          clientID,
		"auto.offset.reset":  "earliest",
		"enable.auto.commit": strconv.FormatBool(auto),
		"isolation.level":    "read_uncommitted",
	}
	if c.ReadCommitted {
		m["isolation.level"] = "read_committed"
	}
	if auto {
		m["interceptor.classes"] = mainClass + "$CommitWatch"
	}
	if c.Group != "" {
		m["group.id"] = c.Group
		if err := groupProperties(c, m); err != nil {
			return nil, err
		}
	}
	return properties(m, c.Extra, "java consumer")
}

// groupProperties puts the group member's timings and protocol into m.
func groupProperties(c client.ConsumerConfig, m map[string]string) error {
	setMillis(m, "auto.commit.interval.ms", c.AutoCommitEach)
	setMillis(m, "max.poll.interval.ms", c.MaxPollInterval)
	switch c.GroupProtocol {
	case "", client.GroupClassic:
		// Heartbeats well within the session (Kafka advises a third).
		setMillis(m, "session.timeout.ms", c.SessionTimeout)
		setMillis(m, "heartbeat.interval.ms", c.SessionTimeout/3)
	case client.GroupConsumer:
		m["group.protocol"] = client.GroupConsumer
	default:
		return fmt.Errorf("java consumer: group protocol %q, want classic or consumer", c.GroupProtocol)
	}
	return nil
}

func setMillis(m map[string]string, k string, d time.Duration) {
	if d > 0 {
		m[k] = millis(d)
	}
}

// properties is m with extra over it, as sorted key=value arguments.
func properties(m map[string]string, extra map[string]any, who string) ([]string, error) {
	for k, v := range extra {
		m[k] = fmt.Sprint(v)
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		if strings.ContainsAny(k, "=\n") || strings.Contains(v, "\n") {
			return nil, fmt.Errorf("%s: config %q = %q: no '=' in a key, no newline anywhere", who, k, v)
		}
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
