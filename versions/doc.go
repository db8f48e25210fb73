// Package versions runs a fixed set of scenarios on each Kafka release and
// writes the table a user upgrading Kafka reads: per version and scenario,
// the guarantee the model expects, the one observed, the anomaly counts,
// liveness (the longest send outage, recovery after the last heal, stalls,
// the worst lag of the consumer's reads) (VERSIONS.md, `make versions`).
// The page names no run directory: it is committed, and the command in
// its header makes every row again.
//
// The scenarios are the sharpest delivery-semantics claims plus the transaction
// protocol's late-arrival question (KAFKA-17754): an idempotent acks=all
// producer under leader kills and pauses, an acks=1 producer whose leader
// is isolated, and a transactional copy whose produce and EndTxn requests
// are held while a broker pauses. Each has a consumer reading what is
// sent, since each expectation names a consumer hop. A version's runs share one cluster of
// that version (runner.Reuse).
//
// This package must not know how a provider starts a given release: it
// asks the caller for a provider per version (Options.Provider).
package versions
