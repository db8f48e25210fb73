// Package java runs the Apache Kafka Java client (kafka-clients, any
// release on Maven Central) as a client under test: a producer whose sends
// are recorded in the history exactly as client.Producer's are, while the
// record goes through the JVM's KafkaProducer.
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
// It must not know checkers, models or cluster providers: like package
// client it records ops and talks to a bootstrap address.
package java
