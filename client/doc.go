// Package client runs a Kafka workload through confluent-kafka-go
// (librdkafka) and records every operation: an invoke before it starts and an
// ok, fail or info completion when its outcome is known.
//
// Workers: Producer (sends, acks/retries/idempotence configurable), Consumer
// (assign or group subscribe, with commit strategies), Copier (transactional
// consume-transform-produce, one txn op per transaction, with an
// at-least-once mode as the negative control) and FinalReads. Each worker runs as one or more
// processes; Crash tears a worker down without a clean close and its process
// ids never return. Which client errors are definite failures and which leave
// the outcome unknown is the table in errors.go, which also maps the
// transactional API's error classes (retriable, abortable, fatal).
//
// This package must not know about checkers or models: it writes histories,
// it never judges them. It must not know a cluster provider either: it talks
// to a bootstrap address, and the only cluster cooperation it asks for (to
// make a consumer crash honest) is the small MemberFencer interface.
package client
