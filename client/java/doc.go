// Package java runs the Apache Kafka Java client (kafka-clients, any
// release on Maven Central) as a client under test: a producer whose sends
// are recorded in the history exactly as client.Producer's are, while the
// record goes through the JVM's KafkaProducer, a consumer (Consumer)
// whose assign, subscribe, poll and commit ops are recorded exactly as
// client.Consumer's are, while its records and commits go through the
// JVM's KafkaConsumer, and the transactional workers, a txn queue
// (TxnQueue) and a copier (Copier), recorded as client.TxnQueue's and
// client.Copier's are.
//
// The harness keeps the workload (pacing, lanes, values, the recorder); the
// client is a JVM process of its own running src/KafkachaosWorker.java,
// driven over JSON lines on its stdin and stdout: one request per send
// (topic, partition, value), one answer per send (the offset, or the
// exception's class and message and whether send() itself raised it,
// before the record reached the producer's accumulator). Crash is SIGKILL
// of the JVM: its open sends complete as info and each lane records a
// crash op. The JVM's command line carries the owner tag of
// internal/ownedproc, so a run's Sweep kills one a crashed harness left.
//
// Toolchain: Ensure fetches kafka-clients and its runtime closure with
// internal/kafkadist (beside the broker's jars, under the same kind of
// lock) and compiles the worker with javac once per (source, release),
// cached. Only java and javac (a JDK, 17 or later) must be installed.
//
// Which exceptions are definite failures is the table in outcome.go:
//
//	raised by send() itself (before-append) and of class   -> fail
//	  SerializationException, RecordTooLargeException,
//	  InvalidTopicException, ConfigException,
//	  IllegalStateException, IllegalArgumentException,
//	  KafkaException (send() refusing the record: e.g. an invalid partition)
//	raised by send() itself, any other class                -> info
//	  notably TimeoutException (waiting for metadata or buffer
//	  space: conservatively unknown)
//	completed from the producer's network thread, any class -> info
//	  TimeoutException (delivery.timeout.ms expired),
//	  NotLeaderOrFollowerException, NetworkException,
//	  NotEnoughReplicasAfterAppendException, ... : the record
//	  was handed to the client, and an attempt may have landed
//	the JVM died, or closed before answering                -> info
//
// Only an exception raised before the record was appended proves nothing
// was transmitted; once appended, the client may have sent it any number
// of times (retries, idempotent or not), so a broker error on the last
// attempt says nothing of the earlier ones.
//
// The consumer is one JVM per process, one request at a time (subscribe,
// assign, poll, commit, committed, seek). A poll's answer lists, in the
// order they happened, the records handed out and the partitions the
// rebalance listener saw revoked (or lost) and assigned, so that a poll
// op drops the records of a key revoked under it as client.Consumer does.
// The strategies are client.Consumer's: commit-after-processing commits
// with commitSync after recording the poll; commit-before-processing
// commits first and processes only the keys whose commit is proven,
// seeking the others back; auto-commit leaves commits to the client, and
// records a commit op only for what the client proves: the worker's
// interceptor (ConsumerInterceptor.onCommit, called once the broker stored
// every offset of a commit) reports it. The transactional strategy is not
// built: ConsumerProperties refuses it. What commitSync's exceptions make
// of a commit (outcome.go, CommitOutcome):
//
//	InvalidGroupIdException, IllegalStateException,       -> fail
//	  IllegalArgumentException (commitSync refuses
//	  before any request)
//	CommitFailedException, RebalanceInProgressException,  -> info
//	  TimeoutException, WakeupException, InterruptException,
//	  any class the table does not name: the commit may
//	  have been sent (and retried) before the exception
//
// After an info commit the group's committed offsets are read back, and a
// key whose committed offset is the one asked for counts as committed (the
// rest go to the op's "uncommitted" Extra), as client.Consumer does.
//
// Crash is SIGKILL of the consumer's JVM: no close, no leave, no commit on
// the way out, so the group sees a member gone silent and no fencing is
// needed. The open op completes as info; an auto-committing consumer's
// position, which an automatic commit in flight at the kill may store, is
// an info commit op; a crash op is last. A JVM that exits unasked ends the
// process the same way, and one that does not answer a request within its
// bound and client.HangGrace is killed and ends it with a client-hang op.
// Crash points the strategy never passes are refused
// (client.ErrUnreachableCrashPoint). The stall hook of client.Consumer
// (stall-consumer) is not built.
//
// The txn queue (TxnQueue) is client.TxnQueue's process of Jepsen's queue
// workload with transactions, in a JVM of its own: a transactional
// KafkaProducer (transactional.id, idempotence, acks=all; max.block.ms is
// the call timeout, so initTransactions, commitTransaction and
// abortTransaction raise a TimeoutException past it, and the JVM retries
// them while the retry budget lasts, as the Java client allows) and a
// read_committed KafkaConsumer assigned every key from its beginning, no
// group. Its JVM is asked, per transaction, to begin it and make its
// sends, polls and pauses (one request), then to commit or abort it; a
// requested crash (SIGKILL) lands between the two. After a transaction
// that did not commit, the JVM seeks each partition back to the first
// offset the transaction's polls read of it. What a transaction's op is
// (TxnOutcome in outcome.go) depends on the stage, not the exception:
//
//	commitTransaction returned                              -> ok
//	the transaction ended before commitTransaction was      -> fail
//	  called (an exception of begin, a send, a poll or
//	  the sends' results; an abort on purpose; a hung
//	  call, after which the JVM is killed and no commit
//	  ever follows; the run's end)
//	commitTransaction raised or hung                        -> info
//	the JVM was killed (crash) or exited unasked            -> info
//
// Every transaction that did not commit is aborted, even one whose
// beginTransaction failed: a producer in an error state (fenced, or its
// transaction aborted by the coordinator past transaction.timeout.ms)
// refuses the abort, and an abort that fails stops the queue (its JVM is
// killed, and a successor fences what is open), as a hung call does (with
// a client-hang op).
//
// The copier (Copier) is client.Copier's transactional consume-transform-
// produce process in a JVM of its own: a read_committed KafkaConsumer of
// the copiers' group (no automatic commit; subscribed with the consumer's
// rebalance listener, or assigned at the group's committed offsets) and a
// transactional KafkaProducer configured as the txn queue's. Each Step is
// one transaction, recorded as client.Copier records it (the same op
// shapes; the same seed draws the same aborts): the JVM is asked to poll;
// a step that read nothing is an ok txn with an empty poll and no
// transaction, and one during whose poll partitions were revoked and
// records read fails; otherwise the JVM is asked, in one request, to begin
// the transaction, send each record's copy (or its poison, when aborting
// on purpose), wait for the sends and add the next offsets to the
// transaction with the consumer's group metadata
// (sendOffsetsToTransaction), then to commit or abort it. A requested
// crash (SIGKILL) lands between the two; the op types are TxnOutcome's.
// After a step that did not commit, the JVM seeks each assigned partition
// back to the group's committed offset (its beginning where none). The
// txn queue and the copier share how a transaction ends and how the
// process does (txnProc): a JVM that exits unasked is info and a crash
// op, one that does not answer a request within its bound is killed with
// a client-hang op. The at-least-once copy mode is not built: NewCopier
// refuses it.
//
// It must not know checkers, models or cluster providers: like package
// client it records ops and talks to a bootstrap address.
package java
