// Package franz runs franz-go (github.com/twmb/franz-go, the kgo client at
// the module version in go.mod) as a client under test: a producer whose
// sends are recorded in the history exactly as client.Producer's are (the
// invoke before Produce, the completion from the record's promise), with
// the same recorder, process ids and lanes; and a consumer recording the
// same ops as client.Consumer's for the same strategy (Consumer).
//
// The scenario's producer config maps to kgo options (Options): acks,
// idempotence (kgo requires acks=all for it, and a config asking for
// both idempotence and acks below all is refused), retries, max in flight
// (without idempotence; with it kgo allows five), delivery timeout,
// request timeout (the produce request's) and linger. The socket timeout
// has no counterpart and keeps kgo's default; librdkafka's Extra settings
// and a transactional id are refused.
//
// Records go to the partition the key map names (a manual partitioner).
// Crash is in-process, as client.Producer's: open sends complete as info,
// each lane records a crash op, and the kgo client is closed in the
// background without a flush. Close flushes until its ctx ends, then
// closes; a send still unanswered then completes as info.
//
// Which sends are definite failures is package fate's table: only a
// record kgo failed before it entered a partition's batch buffer (so that
// no produce request can have carried it) is fail; any error after is
// info, since kgo may have sent the record, and retried it, before it
// gave up.
//
// The producer passes kgo a context that never ends, so no record is
// failed because a worker's context was canceled.
//
// The consumer (ConsumerOptions) assigns or joins a group and commits as
// the strategy says. A member blocks rebalances while the worker holds a
// poll's records (kgo.BlockRebalanceOnPoll), so it never processes or
// commits a record of a partition it no longer owns; what the group moved
// is recorded on the poll that follows. kgo's automatic commits lag one
// poll: a poll's records become committable when the next poll begins, and
// a revoke or leave commits only those, so auto-commit under crashes is
// at least once with franz-go, unlike librdkafka's and the Java client's,
// and after-commit is a crash point its auto-commit consumers never pass.
// A commit's answer proves the partitions answered without error; for the
// rest the group's offsets are read back, and what stays unproven is info,
// never fail (kgo retries inside the call, and a request may have reached
// the coordinator). A crash cuts the client's connections first (a link
// of its own dialer), so its leave and commits reach no broker: the group
// sees a member gone silent, as after a SIGKILL. A clean close's leave is
// given a few seconds, since kgo's leave waits for a join the coordinator
// may hold for silent members; then the connections are cut the same way.
// A call outliving its timeout and a grace is a client-hang op.
//
// The txn queue (TxnQueue) is one kgo client that is both Jepsen's
// transactional producer and its read_committed reader of every key,
// recording one txn op per transaction as client.TxnQueue does: ok only
// once EndTransaction(commit) succeeded, fail when the transaction ended
// before the commit was asked for, info once it was asked for and failed,
// and on a crash (its connections cut first, its transaction left open to
// the successor's fence).
//
// It must not know checkers, models or cluster providers: it records ops
// and talks to a bootstrap address.
package franz
