// Package franz runs franz-go (github.com/twmb/franz-go, the kgo client at
// the module version in go.mod) as a client under test: a producer whose
// sends are recorded in the history exactly as client.Producer's are (the
// invoke before Produce, the completion from the record's promise), with
// the same recorder, process ids and lanes.
//
// Records go to the partition the key map names (a manual partitioner).
// Crash is in-process, as client.Producer's: open sends complete as info,
// each lane records a crash op, and the kgo client is closed in the
// background without a flush. Close flushes until its ctx ends, then
// closes; a send still unanswered then completes as info.
//
// Which sends are definite failures is the table in outcome.go. kgo does
// not say on a failed promise whether the record was ever in a produce
// request, but it does say when a record entered a partition's batch
// buffer (the HookProduceRecordPartitioned hook, called under the lock a
// produce request must take to collect the batch): a record that never
// got there was never written to a broker. So
//
//	nil                                                   -> ok
//	any error, the record never reached a partition       -> fail
//	  buffer (no request can have carried it), notably:
//	  ErrMaxBuffered, a context that ended while Produce
//	  waited for buffer space, MessageTooLarge checked
//	  locally, no topic, ErrClientClosed before buffering,
//	  the topic's metadata failing to load
//	any error once the record was in a partition buffer   -> info
//	  ErrRecordTimeout, ErrRecordRetries (kgo enforces them
//	  on an idempotent batch only when no request is
//	  outstanding, yet an earlier request may have been
//	  appended before a later one failed; without
//	  idempotence it fails batches with requests in
//	  flight), ErrClientClosed, ErrAborting, context
//	  errors, and every broker error (kerr.*): the last
//	  attempt's answer says nothing of the earlier ones
//
// The producer passes kgo a context that never ends, so no record is
// failed because a worker's context was canceled.
//
// It must not know checkers, models or cluster providers: it records ops
// and talks to a bootstrap address.
package franz
