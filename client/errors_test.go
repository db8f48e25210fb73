package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

func TestOutcomeTable(t *testing.T) {
	cases := []struct {
		err  error
		want histories.Type
	}{
		{nil, histories.OK},
		// indefinite: the write may be in the log
		{kafka.NewError(kafka.ErrMsgTimedOut, "", false), histories.Info},
		{kafka.NewError(kafka.ErrTransport, "", false), histories.Info},
		{kafka.NewError(kafka.ErrTimedOut, "", false), histories.Info},
		{kafka.NewError(kafka.ErrRequestTimedOut, "", false), histories.Info},
		{kafka.NewError(kafka.ErrNotLeaderForPartition, "", false), histories.Info},
		{kafka.NewError(kafka.ErrNotEnoughReplicasAfterAppend, "", false), histories.Info},
		{kafka.NewError(kafka.ErrNetworkException, "", false), histories.Info},
		{kafka.NewError(kafka.ErrPurgeInflight, "", false), histories.Info},
		{kafka.NewError(kafka.ErrAllBrokersDown, "", false), histories.Info},
		{kafka.NewError(kafka.ErrFatal, "", true), histories.Info},
		{kafka.NewError(kafka.ErrKafkaStorageError, "", false), histories.Info},
		{kafka.NewError(kafka.ErrUnknown, "", false), histories.Info},
		// definite: certainly not applied
		{kafka.NewError(kafka.ErrMsgSizeTooLarge, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrPurgeQueue, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrNotEnoughReplicas, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrTopicAuthorizationFailed, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrUnknownTopicOrPart, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrProducerFenced, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrUnknownMemberID, "", false), histories.Fail},
		{kafka.NewError(kafka.ErrRebalanceInProgress, "", false), histories.Fail},
		// not kafka errors
		{errors.New("something"), histories.Info},
		{ErrCrashed, histories.Info},
		{fmt.Errorf("%w: %w", errNotSent, errors.New("x")), histories.Fail},
		{fmt.Errorf("wrapped: %w", kafka.NewError(kafka.ErrPurgeQueue, "", false)), histories.Fail},
	}
	for _, c := range cases {
		if got := Outcome(c.err); got != c.want {
			t.Errorf("Outcome(%v) = %s, want %s", c.err, got, c.want)
		}
	}
	if got := completion(context.Canceled); got != histories.Info {
		t.Errorf("completion(canceled) = %s, want info", got)
	}
}

func TestConfigMaps(t *testing.T) {
	zero := 0
	m, err := ProducerConfig{Acks: "all", Retries: &zero, Idempotence: true, MaxInFlight: 5}.ConfigMap("b:1")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"acks": "all", "retries": 0, "enable.idempotence": true, "max.in.flight.requests.per.connection": 5} {
		if (*m)[k] != want {
			t.Errorf("%s = %v, want %v", k, (*m)[k], want)
		}
	}
	if _, err := (ProducerConfig{Acks: "2"}).ConfigMap("b"); err == nil {
		t.Error("acks=2 accepted")
	}
	if _, err := (ConsumerConfig{Commit: "sometimes", Group: "g"}).ConfigMap("b"); err == nil {
		t.Error("unknown commit strategy accepted")
	}
	if _, err := (ConsumerConfig{Commit: CommitAuto}).ConfigMap("b"); err == nil {
		t.Error("auto commit without a group accepted")
	}
	m, _ = ConsumerConfig{Group: "g", Commit: CommitAuto}.ConfigMap("b")
	if (*m)["enable.auto.commit"] != true {
		t.Errorf("auto strategy: enable.auto.commit = %v", (*m)["enable.auto.commit"])
	}
}

func TestKeyMap(t *testing.T) {
	if _, err := NewKeyMap(map[histories.Key]TopicPartition{1: {"t", 0}, 2: {"t", 0}}); err == nil {
		t.Fatal("two keys on one partition accepted")
	}
	km := SequentialKeys("t", 3)
	tp, ok := km.TP(2)
	if !ok || *tp.Topic != "t" || tp.Partition != 2 {
		t.Fatalf("TP(2) = %v %v", tp, ok)
	}
	if k, ok := km.Key(tp); !ok || k != 2 {
		t.Fatalf("Key(%v) = %d %v", tp, k, ok)
	}
	if v, err := decodeValue(encodeValue(-42)); err != nil || v != -42 {
		t.Fatalf("value round trip: %d %v", v, err)
	}
	if _, err := decodeValue([]byte("x")); err == nil {
		t.Fatal("bad value decoded")
	}
}

// flagged is an error with the transactional API's flags, which only
// librdkafka can set on a kafka.Error.
type flagged struct{ fatal, retriable, abort bool }

func (f flagged) Error() string {
	return fmt.Sprintf("%+v", struct{ F, R, A bool }{f.fatal, f.retriable, f.abort})
}
func (f flagged) IsFatal() bool          { return f.fatal }
func (f flagged) IsRetriable() bool      { return f.retriable }
func (f flagged) TxnRequiresAbort() bool { return f.abort }

func TestTxnActionTable(t *testing.T) {
	cases := []struct {
		err  error
		want TxnAction
	}{
		{nil, 0},
		{flagged{retriable: true}, TxnRetry},
		{flagged{abort: true}, TxnAbort},
		{flagged{fatal: true}, TxnFatal},
		// fatal wins over the other flags: nothing can be retried or
		// aborted on an unusable producer.
		{flagged{fatal: true, abort: true, retriable: true}, TxnFatal},
		{flagged{abort: true, retriable: true}, TxnAbort},
		{fmt.Errorf("commit: %w", flagged{fatal: true}), TxnFatal},
		// unflagged errors are treated as abortable
		{flagged{}, TxnAbort},
		{kafka.NewError(kafka.ErrTimedOut, "", false), TxnAbort},
		// the coordinator is still ending the id's last transaction
		{fmt.Errorf("init transactions: %w", kafka.NewError(kafka.ErrConcurrentTransactions, "", false)), TxnRetry},
		{kafka.NewError(kafka.ErrFatal, "", true), TxnFatal},
		{context.DeadlineExceeded, TxnAbort},
	}
	for _, c := range cases {
		if got := TxnActionOf(c.err); got != c.want {
			t.Errorf("TxnActionOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestTxnOutcomeTable(t *testing.T) {
	errs := []error{flagged{retriable: true}, flagged{abort: true}, flagged{fatal: true},
		kafka.NewError(kafka.ErrProducerFenced, "", true), ErrAbortedOnPurpose, context.DeadlineExceeded}
	for _, err := range errs {
		// Before CommitTransaction nothing can be visible: definite.
		if got := TxnOutcome(false, err); got != histories.Fail {
			t.Errorf("TxnOutcome(before commit, %v) = %s, want fail", err, got)
		}
		// During it, the EndTxn may have been applied: unknown.
		if got := TxnOutcome(true, err); got != histories.Info {
			t.Errorf("TxnOutcome(during commit, %v) = %s, want info", err, got)
		}
	}
	if TxnOutcome(true, nil) != histories.OK || TxnOutcome(false, nil) != histories.OK {
		t.Error("a transaction without error is not ok")
	}
}

// A send is fail only when no attempt can have landed: with retries a
// broker's definite refusal of the last attempt says nothing of the first.
func TestSendOutcomeTable(t *testing.T) {
	nes := kafka.NewError(kafka.ErrNotEnoughReplicas, "", false)
	cases := []struct {
		err      error
		mayRetry bool
		want     histories.Type
	}{
		{nil, true, histories.OK},
		{nes, false, histories.Fail},
		{nes, true, histories.Info},
		{kafka.NewError(kafka.ErrOutOfOrderSequenceNumber, "", false), true, histories.Info},
		{kafka.NewError(kafka.ErrLeaderNotAvailable, "", false), true, histories.Info},
		{kafka.NewError(kafka.ErrPurgeQueue, "", false), true, histories.Info},
		{kafka.NewError(kafka.ErrMsgTimedOut, "", false), false, histories.Info},
		{fmt.Errorf("%w: %w", errNotSent, kafka.NewError(kafka.ErrQueueFull, "", false)), true, histories.Fail},
		{kafka.NewError(kafka.ErrUnknownPartition, "", false), true, histories.Fail},
	}
	for _, c := range cases {
		if got := SendOutcome(c.err, c.mayRetry); got != c.want {
			t.Errorf("SendOutcome(%v, %v) = %s, want %s", c.err, c.mayRetry, got, c.want)
		}
	}
	zero := 0
	for cfg, want := range map[*ProducerConfig]bool{
		{}: true, {Retries: &zero}: false, {Retries: &zero, Idempotence: true}: true,
		{Retries: &zero, Extra: map[string]any{"retries": 5}}: true,
	} {
		if got := cfg.mayResend(); got != want {
			t.Errorf("%+v.mayResend() = %v, want %v", *cfg, got, want)
		}
	}
}
