package java

import (
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

const (
	timeout   = "org.apache.kafka.common.errors.TimeoutException"
	tooLarge  = "org.apache.kafka.common.errors.RecordTooLargeException"
	notLeader = "org.apache.kafka.common.errors.NotLeaderOrFollowerException"
)

func TestOutcomeOfExceptions(t *testing.T) {
	for _, c := range []struct {
		name string
		exc  *Exception
		want histories.Type
	}{
		{"acknowledged", nil, histories.OK},
		{"delivery timeout after the append", &Exception{Class: timeout}, histories.Info},
		{"metadata or buffer wait in send()", &Exception{Class: timeout, BeforeAppend: true}, histories.Info},
		{"record too large, checked by send()", &Exception{Class: tooLarge, BeforeAppend: true}, histories.Fail},
		{"record too large from the broker, after the append", &Exception{Class: tooLarge}, histories.Info},
		{"not leader after the append", &Exception{Class: notLeader}, histories.Info},
		{"serializer failed", &Exception{Class: "org.apache.kafka.common.errors.SerializationException", BeforeAppend: true}, histories.Fail},
		{"producer closed", &Exception{Class: "java.lang.IllegalStateException", BeforeAppend: true}, histories.Fail},
		{"a class the table does not know, raised by send()", &Exception{Class: "com.example.Surprise", BeforeAppend: true}, histories.Info},
		{"a subclass of a definite class is not assumed definite",
			&Exception{Class: "org.apache.kafka.common.errors.InterruptException", BeforeAppend: true}, histories.Info},
	} {
		if got := Outcome(c.exc); got != c.want {
			t.Errorf("%s: Outcome(%+v) = %s, want %s", c.name, c.exc, got, c.want)
		}
	}
}

// Every row of the table is a fully qualified class, named once, with the
// reason it proves nothing was sent.
func TestDefiniteRulesAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range definiteRules() {
		if seen[r.Class] || r.Why == "" || len(r.Class) < len("java.x.Y") {
			t.Errorf("rule %+v: duplicate, unexplained or not a class name", r)
		}
		seen[r.Class] = true
		if got := Outcome(&Exception{Class: r.Class}); got != histories.Info {
			t.Errorf("%s after the append = %s, want info: the record was handed to the client", r.Class, got)
		}
	}
}

func TestCommitOutcomeOfExceptions(t *testing.T) {
	const errs = "org.apache.kafka.common.errors."
	for _, c := range []struct {
		class string
		want  histories.Type
	}{
		{"org.apache.kafka.clients.consumer.CommitFailedException", histories.Info},
		{errs + "RebalanceInProgressException", histories.Info},
		{errs + "TimeoutException", histories.Info},
		{errs + "WakeupException", histories.Info},
		{errs + "InvalidGroupIdException", histories.Fail},
		{"java.lang.IllegalStateException", histories.Fail},
		{"java.lang.IllegalArgumentException", histories.Fail},
		{errs + "CoordinatorNotAvailableException", histories.Info}, // not in the table: maybe sent
		{"org.apache.kafka.common.KafkaException", histories.Info},
	} {
		if got := CommitOutcome(&Exception{Class: c.class}); got != c.want {
			t.Errorf("CommitOutcome(%s) = %s, want %s", c.class, got, c.want)
		}
	}
	if got := CommitOutcome(nil); got != histories.OK {
		t.Errorf("CommitOutcome(nil) = %s, want ok", got)
	}
}

// Every commit row is a class named once, with its reason, and only the
// rows that say nothing was sent are fail.
func TestCommitRulesAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range commitRules() {
		if seen[r.Class] || r.Why == "" || len(r.Class) < len("java.x.Y") || (r.Type != histories.Info && r.Type != histories.Fail) {
			t.Errorf("rule %+v: duplicate, unexplained, not a class name or not info/fail", r)
		}
		if r.Type == histories.Fail && !strings.Contains(r.Why, "before any request") {
			t.Errorf("rule %s is fail but does not say it refuses before any request: %q", r.Class, r.Why)
		}
		seen[r.Class] = true
	}
}

// A transaction's op depends on the stage it ended at, not the exception:
// ok once commitTransaction returned, fail before it was called, info once
// it was, and info whenever the JVM died mid-transaction.
func TestTxnOutcome(t *testing.T) {
	fenced := &Exception{Class: "org.apache.kafka.common.errors.ProducerFencedException", Call: "commitTransaction"}
	timedOut := &Exception{Class: timeoutException, Call: "transaction"}
	for _, c := range []struct {
		commitRequested, crashed bool
		err                      error
		want                     histories.Type
	}{
		{true, false, nil, histories.OK},
		{false, false, timedOut, histories.Fail},
		{false, false, fenced, histories.Fail},
		{false, false, &client.HangError{Call: "txn"}, histories.Fail},
		{true, false, fenced, histories.Info},
		{true, false, timedOut, histories.Info},
		{true, false, &client.HangError{Call: "commit"}, histories.Info},
		{false, true, errJVMGone, histories.Info},
		{true, true, errJVMGone, histories.Info},
	} {
		if got := TxnOutcome(c.commitRequested, c.crashed, c.err); got != c.want {
			t.Errorf("TxnOutcome(commit requested %v, crashed %v, %v) = %s, want %s", c.commitRequested, c.crashed, c.err, got, c.want)
		}
	}
	if !strings.Contains(fenced.Error(), "commitTransaction: org.apache.kafka.common.errors.ProducerFencedException") {
		t.Errorf("a txn call's exception reads %q: want the call named", fenced.Error())
	}
}
