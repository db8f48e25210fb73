// Package client runs a Kafka workload through confluent-kafka-go
// (librdkafka) and records every operation: an invoke before it starts and an
// ok, fail or info completion when its outcome is known.
//
// Workers: Producer (sends, acks/retries/idempotence configurable), Consumer
// (assign or group subscribe, with commit strategies), Copier (transactional
// consume-transform-produce, one txn op per transaction, with an
// at-least-once mode as the negative control), TxnQueue (Jepsen's queue
// workload with transactions: each transaction mixes sends and
// read_committed polls of several keys, one txn op whose mops are the
// sends and polls in order; both transactional workers share txnClient)
// and FinalReads. Each worker runs as one or more
// processes; Crash tears a worker down without a clean close and its process
// ids never return. Which client errors are definite failures and which leave
// the outcome unknown is the table in errors.go, which also maps the
// transactional API's error classes (retriable, abortable, fatal).
//
// A Copier's output values follow histories' copy scheme: the copy of an
// input record names its input offset and value (histories.CopyValue), and
// a transaction aborted on purpose writes a poisoned value of its own
// (histories.PoisonValue, from its txn op's index), so that the checkers'
// duplicate and aborted-read findings on the output keys name the copier's
// doing, never an input duplicate or a second aborted attempt.
//
// A rebalance runs inside a poll op (librdkafka calls the callback from
// Poll) and is recorded on it. Records the op fetched of a partition
// revoked before it ended are dropped unprocessed and uncommitted (listed
// in the op's "revoked-unprocessed" Extra), as an application that commits
// before or after processing must: their new owner reads them from the
// committed offset. Auto-commit keeps them, since librdkafka commits their
// stored offsets as it revokes.
//
// librdkafka calls that can block past their timeout (or have none) go
// through Bounded: the consumer's Poll, CommitOffsets, Committed,
// QueryWatermarkOffsets, Assign, SubscribeTopics, Seek and Close, and the
// transactional calls of the copier and the txn queue. One still blocked a grace (HangGrace) past
// its timeout is given up: the open op completes (info, or fail when
// provably without effect), a client-hang op {call, timeout-ms, grace-ms,
// blocked-ms} ends the process as a crash op would, and the client is
// abandoned: never used or closed again, its goroutine and threads leaked.
// The worker gets an error matching ErrClientHang (a consumer's also
// matches ErrCrashed, so its slot replaces it as after a crash);
// FinalReads fails naming the call.
//
// This package must not know about checkers or models: it writes histories,
// it never judges them. It must not know a cluster provider either: it talks
// to a bootstrap address, and the only cluster cooperation it asks for (to
// make a consumer crash honest) is the small MemberFencer interface.
package client
