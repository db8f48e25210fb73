package model

import (
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// Conditions are the faults a run may suffer that change what Kafka promises.
// The zero value is the pessimistic one the harness tests under: brokers may
// die and leadership may move.
type Conditions struct {
	// StableLeaders promises that no partition leader fails or changes during
	// the run (the claims' "as long as the cluster is stable").
	StableLeaders bool
	// UnsyncedLoss says every replica of a partition may lose its
	// unsynced writes at once (a power loss of them all, brokers not
	// flushing every message): acks=all then keeps no acknowledged record
	// that no replica had synced.
	UnsyncedLoss bool
}

// Hop is the expected guarantee of one hop and why.
type Hop struct {
	Guarantee Guarantee `json:"guarantee"`
	Reasons   []string  `json:"reasons"`
}

// Expectation is the guarantee Kafka documents for a configuration.
type Expectation struct {
	// Producer is the hop from producer to log, counting only records the
	// producer was told were written.
	Producer Hop `json:"producer"`
	// Consumer is the hop from log to the consumer's processing.
	Consumer Hop `json:"consumer"`
	// EndToEnd is Meet(Producer, Consumer): exactly-once needs both hops
	// exactly-once.
	EndToEnd Guarantee `json:"end-to-end"`
	// ReadCommitted: the readers read committed records only, so no read
	// may return a record of a transaction that aborted or had not yet
	// committed, whatever either hop may lose or duplicate (Breaks).
	ReadCommitted bool `json:"read-committed,omitempty"`
}

// Reasons lists both hops' reasons, each prefixed with its hop.
func (e Expectation) Reasons() []string {
	out := make([]string, 0, len(e.Producer.Reasons)+len(e.Consumer.Reasons))
	for _, r := range e.Producer.Reasons {
		out = append(out, "producer: "+r)
	}
	for _, r := range e.Consumer.Reasons {
		out = append(out, "consumer: "+r)
	}
	return out
}

// Expected is the guarantee Kafka documents for p, t and c when brokers may
// fail (ExpectedUnder with the zero Conditions).
func Expected(p ProducerConfig, t TopicConfig, c ConsumerConfig) (Expectation, error) {
	return ExpectedUnder(Conditions{}, p, t, c)
}

// ExpectedUnder is the guarantee Kafka documents for p, t and c under cond.
// It fails on configurations Kafka would reject.
func ExpectedUnder(cond Conditions, p ProducerConfig, t TopicConfig, c ConsumerConfig) (Expectation, error) {
	for _, v := range []interface{ Validate() error }{p, t, c} {
		if err := v.Validate(); err != nil {
			return Expectation{}, err
		}
	}
	e := Expectation{Producer: producerHop(cond, p, t), Consumer: consumerHop(cond, p, t, c), ReadCommitted: c.IsolationLevel == ReadCommitted}
	e.EndToEnd = Meet(e.Producer.Guarantee, e.Consumer.Guarantee)
	return e, nil
}

// producerHop: the producer hop may lose if acks=0, or acks=1 and leaders may
// fail, or acks=all and leaders may fail and the topic lets a single copy be
// acknowledged or elected (replication.factor<2, min.insync.replicas<2,
// unclean leader election). It may duplicate if the client retries (acks is
// not 0, retries>0) and the broker does not deduplicate (not idempotent, not
// transactional).
func producerHop(cond Conditions, p ProducerConfig, t TopicConfig) Hop {
	lose, why := producerMayLose(cond, p, t)
	dup, whyDup := producerMayDuplicate(p)
	return Hop{Guarantee: FromAxes(lose, dup), Reasons: append(why, whyDup...)}
}

func producerMayLose(cond Conditions, p ProducerConfig, t TopicConfig) (bool, []string) {
	switch {
	case p.Acks == AcksNone:
		return true, []string{"acks=0: the producer never hears from the broker, so a record dropped on the way or refused is never reported (may lose)"}
	case cond.StableLeaders:
		return false, []string{"acks=" + p.Acks.String() + " and no leader fails: the leader has every acknowledged record (no loss)"}
	case p.Acks == AcksLeader:
		return true, []string{"acks=1: the leader acknowledges before any follower copies the record; if it fails first, a follower becomes leader without it and the record is truncated (may lose)"}
	}
	var why []string
	if t.ReplicationFactor < 2 {
		why = append(why, "replication.factor<2: an acknowledged record has one copy, acknowledged before fsync, so losing that broker's unflushed log loses it (may lose)")
	}
	if t.MinInsyncReplicas < 2 {
		why = append(why, "min.insync.replicas<2: the in-sync set may shrink to the leader alone and acks=all then waits for no follower, the durability of acks=1 (may lose)")
	}
	if t.UncleanLeaderElection {
		why = append(why, "unclean.leader.election.enable: a replica that is not in sync may become leader and truncate acknowledged records (may lose)")
	}
	if cond.UnsyncedLoss {
		why = append(why, "every replica may lose power at once: brokers acknowledge before fsync, so an acknowledged record no replica had synced is gone (log.flush.interval.messages=1 keeps it) (may lose)")
	}
	if len(why) > 0 {
		return true, why
	}
	return false, []string{"acks=all with min.insync.replicas>=2 and clean elections: every acknowledged record is on at least two in-sync replicas and only an in-sync replica can lead (no loss while one of them lives)"}
}

func producerMayDuplicate(p ProducerConfig) (bool, []string) {
	switch {
	case p.Acks == AcksNone:
		return false, []string{"acks=0: no response, so nothing is retried (no duplicates)"}
	case p.Retries == 0:
		return false, []string{"retries=0: the client never resends a request (no duplicates; a failed send is reported to the application)"}
	case p.Transactional():
		return false, []string{"transactional producer: idempotent, the broker drops a retried batch by producer id and sequence (no duplicates within a producer session)"}
	case p.EnableIdempotence:
		return false, []string{"idempotent producer: the broker drops a retried batch by producer id and sequence (no duplicates within a producer session)"}
	}
	why := []string{"retries>0 without idempotence: a write whose response was lost is sent again and lands twice (may duplicate)"}
	if p.MaxInFlight > 1 {
		why = append(why, "retries with more than one request in flight may also reorder records (an ordering anomaly, not a delivery one)")
	}
	return true, why
}

// consumerHop: the consumer hop depends on when offsets are committed
// relative to processing, on whether it can see records of aborted
// transactions, and on whether the log may lose records a group has read.
func consumerHop(cond Conditions, p ProducerConfig, t TopicConfig, c ConsumerConfig) Hop {
	var lose, dup bool
	var why []string
	switch c.CommitStrategy {
	case CommitAuto:
		lose, dup = true, true
		why = append(why, "auto-commit: offsets are committed on a timer, independently of processing (librdkafka commits from a background thread what was handed to the application), so a crash may skip records not yet processed (may lose) or redeliver records processed since the last commit (may duplicate)")
	case CommitBeforeProcessing:
		lose = true
		why = append(why, "commit before processing: a crash after the commit and before processing skips those records (may lose, no duplicates)")
	case CommitAfterProcessing:
		dup = true
		why = append(why, "commit after processing: a crash after processing and before the commit redelivers those records (may duplicate, no loss)")
	case CommitTransactional:
		why = append(why, "offsets committed in the output transaction (sendOffsetsToTransaction): processing and commit take effect together or not at all")
		if c.IsolationLevel != ReadCommitted {
			dup = true
			why = append(why, "transactional commit with read_uncommitted: output of aborted attempts is visible, and the retried attempt writes it again (may duplicate)")
		}
	}
	if c.IsolationLevel == ReadUncommitted && p.Transactional() {
		dup = true
		why = append(why, "read_uncommitted with a transactional producer: records of aborted transactions are processed, and the producer sends them again (may duplicate)")
	}
	if cause := readMayTruncate(cond, t); cause != "" {
		lose, dup = true, true
		why = append(why, cause+": the log may be truncated below the group's committed offset, which then lies past the log's end; the group resets its position and processes again records it had processed (may duplicate), or skips records the log wrote again below that offset (may lose)")
	}
	return Hop{Guarantee: FromAxes(lose, dup), Reasons: why}
}

// readMayTruncate names what may truncate records a group has read (below
// the high watermark), "" when nothing may: a replica that was not in sync
// elected, or every replica that had a record losing its unsynced writes.
func readMayTruncate(cond Conditions, t TopicConfig) string {
	switch {
	case cond.StableLeaders:
		return ""
	case t.UncleanLeaderElection:
		return "unclean.leader.election.enable"
	case cond.UnsyncedLoss:
		return "every replica may lose power at once"
	case t.ReplicationFactor < 2:
		return "replication.factor<2"
	case t.MinInsyncReplicas < 2:
		return "min.insync.replicas<2"
	}
	return ""
}

// HeldBy reports whether a run that showed o kept e: Breaks found nothing.
func (e Expectation) HeldBy(o Observation) bool { return len(e.Breaks(o)) == 0 }

// Breaks lists, hop by hop, where a run that showed o broke e: a hop that
// showed loss or duplicates its expectation does not allow, and anomalies
// this package cannot classify. Judging end to end alone would hide one
// hop's break behind the other hop's weakness: an idempotent producer that
// duplicated is a finding even when the consumer commits after processing
// and so may redeliver anyway.
func (e Expectation) Breaks(o Observation) []string {
	var out []string
	for _, h := range []struct {
		name      string
		want, got Guarantee
	}{{"producer", e.Producer.Guarantee, o.Producer}, {"consumer", e.Consumer.Guarantee, o.Consumer}} {
		if !Satisfies(h.got, h.want) {
			out = append(out, fmt.Sprintf("%s hop: expected %s, observed %s", h.name, h.want, h.got))
		}
	}
	if e.ReadCommitted {
		if dirty := dirtyReads(o); len(dirty) > 0 {
			out = append(out, fmt.Sprintf("read_committed: %v, reads of records whose transaction or send failed or had not committed, which the isolation level rules out whatever either hop may duplicate", dirty))
		}
	}
	if len(o.Unclassified) > 0 {
		out = append(out, fmt.Sprintf("anomalies of unknown effect: %v", o.Unclassified))
	}
	return out
}

// dirtyReads are the anomalies of o that a read_committed reader must never
// show: an aborted read (G1a) and a read before the commit.
func dirtyReads(o Observation) []checkers.Anomaly {
	var out []checkers.Anomaly
	for _, a := range o.Duplication {
		if a == checkers.G1a || a == checkers.PrecommittedRead {
			out = append(out, a)
		}
	}
	return out
}

// Copied is e for a copy pipeline (consume, transform, produce again): a
// copier that processes a record twice writes it twice, so duplicates on
// its output are the consumer hop's redeliveries as much as the
// producer's, and the checkers cannot tell them apart. The producer hop
// then may duplicate wherever the consumer hop may; a transactional copy
// (exactly-once on both hops) is unchanged.
func (e Expectation) Copied() Expectation {
	if e.Consumer.Guarantee.MayDuplicate() && !e.Producer.Guarantee.MayDuplicate() {
		e.Producer.Guarantee = FromAxes(e.Producer.Guarantee.MayLose(), true)
		e.Producer.Reasons = append(slices.Clone(e.Producer.Reasons),
			"a copier that processes a record twice writes it twice: its output shows the consumer hop's redeliveries as duplicates")
	}
	return e
}
