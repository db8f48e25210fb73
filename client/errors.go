package client

import (
	"context"
	"errors"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Outcome classifies the error an operation completed with: nil is OK; a
// definite failure (the operation certainly did not take effect) is Fail;
// anything else is Info. Unknown errors are Info: calling an indefinite
// outcome definite would let the checkers call a real write lost.
//
// librdkafka knows, per message, whether it was persisted
// (rd_kafka_message_status: NOT_PERSISTED, POSSIBLY_PERSISTED, PERSISTED),
// but confluent-kafka-go does not expose it, so the table below mirrors its
// reasoning per error code, and the Java client's for broker errors.
func Outcome(err error) histories.Type {
	if err == nil {
		return histories.OK
	}
	var kerr kafka.Error
	if !errors.As(err, &kerr) {
		if errors.Is(err, errNotSent) {
			return histories.Fail
		}
		// context expiry, crashes, anything we did not see the client
		// decide: the request may be on the wire.
		return histories.Info
	}
	if definite(kerr.Code()) {
		return histories.Fail
	}
	return histories.Info
}

// errNotSent wraps errors that happened before the client accepted an
// operation (e.g. Produce returning an error): nothing was sent.
var errNotSent = errors.New("not sent")

// definite reports whether a request that failed with code certainly did
// not take effect.
func definite(code kafka.ErrorCode) bool {
	switch code {
	// Rejected by librdkafka before anything was sent.
	case kafka.ErrQueueFull, kafka.ErrMsgSizeTooLarge, kafka.ErrInvalidArg,
		kafka.ErrUnknownTopic, kafka.ErrUnknownPartition, kafka.ErrState,
		kafka.ErrPurgeQueue, // purged from the queue: never transmitted
		kafka.ErrKeySerialization, kafka.ErrValueSerialization:
		return true
	// Broker errors answered before the append (the broker validates
	// first): the batch is not in the log.
	case kafka.ErrInvalidMsg, kafka.ErrUnknownTopicOrPart, kafka.ErrInvalidMsgSize,
		kafka.ErrLeaderNotAvailable, kafka.ErrRecordListTooLarge,
		kafka.ErrNotEnoughReplicas, // checked before append; ...AfterAppend is not
		kafka.ErrInvalidRequiredAcks, kafka.ErrTopicAuthorizationFailed,
		kafka.ErrClusterAuthorizationFailed, kafka.ErrTransactionalIDAuthorizationFailed,
		kafka.ErrInvalidTimestamp, kafka.ErrUnsupportedVersion, kafka.ErrUnsupportedForMessageFormat,
		kafka.ErrPolicyViolation, kafka.ErrOutOfOrderSequenceNumber,
		kafka.ErrInvalidProducerEpoch, kafka.ErrProducerFenced, kafka.ErrInvalidTxnState,
		kafka.ErrInvalidProducerIDMapping, kafka.ErrTopicException, kafka.ErrInvalidRecord:
		return true
	// Group and commit errors answered before the coordinator stores
	// anything.
	case kafka.ErrIllegalGeneration, kafka.ErrUnknownMemberID, kafka.ErrRebalanceInProgress,
		kafka.ErrGroupAuthorizationFailed, kafka.ErrInvalidGroupID, kafka.ErrFencedInstanceID,
		kafka.ErrOffsetMetadataTooLarge, kafka.ErrInvalidCommitOffsetSize, kafka.ErrNoOffset:
		return true
	}
	// Everything else is indefinite, notably: _MSG_TIMED_OUT, _TRANSPORT,
	// _TIMED_OUT, _ALL_BROKERS_DOWN, _PURGE_INFLIGHT, _FATAL, _DESTROY,
	// REQUEST_TIMED_OUT, NETWORK_EXCEPTION, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
	// KAFKA_STORAGE_ERROR, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and
	// NOT_LEADER_OR_FOLLOWER (a leader may append, then lose leadership
	// before answering).
	return false
}

// SendOutcome is the type of a send that ended with err. mayRetry says
// whether the client could have sent the record more than once (retries >
// 0, or idempotence): then an earlier attempt may have been appended before
// a later one failed, and a broker error on the last attempt proves nothing
// about the first. Only errors raised before anything was sent stay Fail.
func SendOutcome(err error, mayRetry bool) histories.Type {
	t := completion(err)
	if t == histories.Fail && mayRetry && !errors.Is(err, errNotSent) && !localBeforeSend(err) {
		return histories.Info
	}
	return t
}

// CommitOutcome is the type of an offset commit that ended with err.
// librdkafka retries commits internally, so a broker error on the last
// attempt does not prove an earlier one was not stored: only errors raised
// before a request was sent are Fail.
func CommitOutcome(err error) histories.Type {
	t := completion(err)
	if t == histories.Fail && !localBeforeSend(err) {
		return histories.Info
	}
	return t
}

// localBeforeSend reports whether err was raised by librdkafka before any
// request left the client.
func localBeforeSend(err error) bool {
	var kerr kafka.Error
	if !errors.As(err, &kerr) {
		return false
	}
	switch kerr.Code() {
	case kafka.ErrQueueFull, kafka.ErrMsgSizeTooLarge, kafka.ErrInvalidArg, kafka.ErrUnknownTopic,
		kafka.ErrUnknownPartition, kafka.ErrState, kafka.ErrKeySerialization, kafka.ErrValueSerialization,
		kafka.ErrNoOffset:
		return true
	}
	return false
}

// completion maps an error to the op type, treating context cancellation
// of a worker that is being shut down as unknown.
func completion(err error) histories.Type {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return histories.Info
	}
	return Outcome(err)
}

// Transactions: the Kafka transactional API classifies its own errors, and
// the copier follows those classes rather than the per-code table above.
//
//	class (librdkafka flag)       action                         txn op, if it ends here
//	retriable (IsRetriable)       call the same method again      -
//	abortable (TxnRequiresAbort)  AbortTransaction, rewind        fail before CommitTransaction, info during it
//	fatal (IsFatal)               stop; a successor with the      fail before CommitTransaction, info during it
//	                              same transactional.id fences
//	anything else                 treated as abortable            as abortable
//
// Before CommitTransaction is called every error is a definite failure:
// a transaction's records and offsets become visible only through the
// EndTxn(commit) that CommitTransaction alone sends, and without it the
// coordinator aborts them (on AbortTransaction, on fencing by a successor,
// or on transaction.timeout.ms). Once CommitTransaction has been called,
// every error is indefinite: the EndTxn may have been applied before a
// timeout, a lost response, or an abortable error raised afterwards, and
// even a fenced error can answer a retry of an EndTxn that had already
// committed.

// TxnAction is what the transactional API asks of the application after an
// error.
type TxnAction int

const (
	// TxnRetry: call the same method again.
	TxnRetry TxnAction = iota + 1
	// TxnAbort: abort the transaction, rewind the consumer, carry on.
	TxnAbort
	// TxnFatal: the producer is unusable (e.g. fenced); stop it.
	TxnFatal
)

func (a TxnAction) String() string {
	switch a {
	case TxnRetry:
		return "retry"
	case TxnAbort:
		return "abort"
	case TxnFatal:
		return "fatal"
	}
	return "none"
}

// txnError is the part of kafka.Error the transactional API flags; an
// interface so that tests can build errors librdkafka alone can flag.
type txnError interface {
	IsFatal() bool
	IsRetriable() bool
	TxnRequiresAbort() bool
}

// TxnActionOf classifies an error of a transactional producer call; nil
// needs no action (0).
func TxnActionOf(err error) TxnAction {
	if err == nil {
		return 0
	}
	var te txnError
	if !errors.As(err, &te) {
		return TxnAbort
	}
	switch {
	case te.IsFatal():
		return TxnFatal
	case te.TxnRequiresAbort():
		return TxnAbort
	case te.IsRetriable(), concurrentTransactions(err):
		return TxnRetry
	}
	return TxnAbort
}

// concurrentTransactions reports an error of the coordinator still ending
// the transactional id's last transaction (CONCURRENT_TRANSACTIONS): Kafka
// calls it retriable, and librdkafka passes it on unflagged once its own
// retries of an InitTransactions outlast the call's timeout.
func concurrentTransactions(err error) bool {
	var ke kafka.Error
	return errors.As(err, &ke) && ke.Code() == kafka.ErrConcurrentTransactions
}

// TxnOutcome is the type of a txn op that ended with err, given whether
// CommitTransaction had been called (see the table above).
func TxnOutcome(commitRequested bool, err error) histories.Type {
	switch {
	case err == nil:
		return histories.OK
	case commitRequested:
		return histories.Info
	}
	return histories.Fail
}
