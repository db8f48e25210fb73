package java

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Exception is how a send of the Java client ended badly, as the worker
// reports it.
type Exception struct {
	Class   string // fully qualified, e.g. org.apache.kafka.common.errors.TimeoutException
	Message string
	// BeforeAppend: send() itself raised it, on the calling thread,
	// before the record reached the accumulator.
	BeforeAppend bool
	// Call names the call of a consumer or txn queue that raised it; ""
	// for a send.
	Call string
}

func (e *Exception) Error() string {
	if e.Call != "" {
		return fmt.Sprintf("%s: %s: %s", e.Call, e.Class, e.Message)
	}
	stage := "after the record was handed to the client"
	if e.BeforeAppend {
		stage = "raised by send()"
	}
	return fmt.Sprintf("%s: %s (%s)", e.Class, e.Message, stage)
}

// rule is one row of the exception table: a class raised by send()
// before append, and why it proves the record was never transmitted.
type rule struct {
	Class string
	Why   string
}

// definiteRules are the exception classes that make a send a definite
// failure when send() raised them before append (package doc).
func definiteRules() []rule {
	return []rule{
		{"org.apache.kafka.common.errors.SerializationException", "the serializer failed: there were no bytes to send"},
		{"org.apache.kafka.common.errors.RecordTooLargeException", "checked against max.request.size and buffer.memory before the append"},
		{"org.apache.kafka.common.errors.InvalidTopicException", "the topic name is refused before any request"},
		{"org.apache.kafka.common.config.ConfigException", "the producer refuses its configuration"},
		{"java.lang.IllegalStateException", "the producer is closed (or in a wrong transactional state) and refuses the send"},
		{"java.lang.IllegalArgumentException", "the record is refused as built (e.g. a negative partition)"},
		{"org.apache.kafka.common.KafkaException", "send() refuses the record before the append (e.g. an invalid partition)"},
	}
}

// Outcome is the type of a send that ended with e; nil is OK.
func Outcome(e *Exception) histories.Type {
	if e == nil {
		return histories.OK
	}
	if !e.BeforeAppend {
		return histories.Info
	}
	for _, r := range definiteRules() {
		if r.Class == e.Class {
			return histories.Fail
		}
	}
	return histories.Info
}

// commitRule is one row of the consumer's commit table: an exception
// commitSync raised, what it makes of the commit, and why.
type commitRule struct {
	Class string
	Type  histories.Type
	Why   string
}

// commitRules are the exceptions of the consumer's commitSync the table
// names (package doc). A class it does not name is info: commitSync may
// have sent the commit (and retried it) before raising anything.
func commitRules() []commitRule {
	const errs = "org.apache.kafka.common.errors."
	return []commitRule{
		{"org.apache.kafka.clients.consumer.CommitFailedException", histories.Info,
			"the coordinator refused an attempt for a rebalance or a lost membership, but an earlier attempt of the same commitSync (retried after a lost response) may have been stored"},
		{errs + "RebalanceInProgressException", histories.Info,
			"raised before sending while the member rejoins, or as the coordinator's answer to an attempt that followed another: which one, the class does not say"},
		{errs + "TimeoutException", histories.Info,
			"the timeout expired with the request sent, or being retried: the coordinator may store it still"},
		{errs + "WakeupException", histories.Info, "woken while waiting for the result: the request may be out"},
		{errs + "InterruptException", histories.Info, "interrupted while waiting for the result: the request may be out"},
		{errs + "InvalidGroupIdException", histories.Fail, "no group.id: commitSync refuses before any request"},
		{"java.lang.IllegalStateException", histories.Fail, "the consumer is closed: commitSync refuses before any request"},
		{"java.lang.IllegalArgumentException", histories.Fail, "the offsets are refused as built (e.g. negative) before any request"},
	}
}

// CommitOutcome is the type of a commitSync that ended with e; nil is OK.
func CommitOutcome(e *Exception) histories.Type {
	if e == nil {
		return histories.OK
	}
	for _, r := range commitRules() {
		if r.Class == e.Class {
			return r.Type
		}
	}
	return histories.Info
}

// TxnOutcome is the type of a txn queue's transaction that ended with err,
// given whether commitTransaction had been called: ok when it returned;
// fail when the transaction ended before it was called, whatever the
// exception, since only the EndTxn(commit) it sends can make the
// transaction's records visible (an abort, a hung call the queue then
// abandons, and a successor's fence all leave them invisible); info once it
// was called and did not return, since the coordinator may have applied
// the commit before the client heard so; and info when the JVM died or
// was killed (crash) mid-transaction. No exception class changes this: the
// stage of the call decides, as client.TxnOutcome decides it.
func TxnOutcome(commitRequested, crashed bool, err error) histories.Type {
	if crashed {
		return histories.Info
	}
	return client.TxnOutcome(commitRequested, err)
}
