// Package fate says what franz-go's answer to a produced record proves of
// the record's fate: ok, a definite failure, or unknown (info). Both
// franz-go producers use it: client/franz's, on a real or embedded
// cluster, and the simulation's, in its bubble.
//
// kgo does not say on a failed promise whether the record was ever in a
// produce request, but it does say when a record entered a partition's
// batch buffer (the HookProduceRecordPartitioned hook, called under the
// lock a produce request must take to collect the batch): a record that
// never got there was never written to a broker. Hook marks the record's
// context (WithMark) when that happens, and Outcome reads the mark:
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
// It must not know the harness's clients (it is imported where librdkafka
// is not linked) nor any cluster: it reads kgo's errors and hooks only.
package fate
