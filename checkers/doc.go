// Package checkers judges a Kafka history: it builds each key's version
// order and finds every anomaly Jepsen's Kafka checker finds, plus the
// consumer-group pair that decides delivery semantics. Check is a pure
// function of the history; each Case names the op indexes that prove it.
//
// # Design: two streaming passes
//
// Pass 1 (collect.go) reads every op once and builds, per key, the version
// order (offset -> value, an array indexed by offset since Kafka offsets are
// nearly dense) and a value table (32-byte records: writer op, writer
// outcome, first offset, read flags), both in chunks that are never copied
// (chunked.go). Pass 1 needs no value map: a value is found through the
// offset it was seen at. Between the passes (seal) each key's value records
// are sorted by value and merged (one value seen at two offsets is a
// duplicate), info ops proven to have taken effect add their offsets, and
// each log is numbered densely: gaps left by transaction markers are not
// records, so "adjacent" and "skip" are judged on dense indexes.
//
// Parsing costs more than judging, so the history is parsed once: pass 1
// also keeps a compact varint replay (replay.go) of the ops pass 2 judges
// (client completions; invokes and nemesis ops are left out), about a tenth
// of the JSONL's size. Pass 2 (check.go) decodes the replay, resolves each
// op's sends and reads against the sealed orders once (opview.go) and hands
// the op to every per-op detector. Final verdicts that need the whole history
// (lost writes, unseen, lost deliveries, cycles) are computed after pass 2
// from compact state. Nothing else is kept per op except graph nodes for ok
// ops that send.
//
// Each pass keeps both cores busy. In pass 1 the reader decodes blocks of
// lines on every core, and liveness (below) follows on a goroutine of its
// own, fed a copy of what it reads of each op (livefeed.go). Pass 2 is a
// pipeline: the replay is decoded on one goroutine, each op's view resolved
// once on another, and the detectors read the views in two lanes on two
// more, each lane with its own sink; no anomaly comes from both, so the
// merged sinks are the serial run's.
//
// # Version orders
//
// Every poll counts, whatever the op's outcome (a poll that returned records
// saw them); sends count when ok with an offset, or info with an offset and
// proven by an ok read of one of the op's values. A record's position is its
// own offset; a send without offset is placed where its value was seen.
//
//   - inconsistent-offsets: two values seen at one offset of a key.
//   - duplicate: one value seen at two offsets of a key.
//
// # Producer side
//
//   - lost-write (Jepsen's rule): the bound of a key is the furthest dense
//     index of any value an ok poll/txn read. A value at or below the bound,
//     whose writer took effect (ok, or info and read by an ok op), that no ok
//     op read, is lost: readers moved past it.
//   - unseen: an ok send that no ok op ever read. After final reads to the end
//     of every partition it means loss; before, it may be lag. Counts per
//     anomaly are in Result.Counts.
//   - lost-after-read (lostafterread.go): on a key an ok final assign named,
//     a value an ok op read before that assign, whose writer is ok (or an
//     info send, not txn), that the final reads do not contain: the log
//     truncated it after it was read (an unclean election). The final reads
//     are the ops with Extra "final": true, reading every key from its
//     beginning to its end after healing.
//   - nonmonotonic-send: a process's ok send, or info send that the version
//     order places, landed before its previous ok send to that key. Info
//     sends do not move the position: a timed-out send may be retried into
//     the log after later ones. An ok or info assign or subscribe keeps only
//     the positions of the keys it names, as Jepsen does.
//   - int-send-skip / int-nonmonotonic-send: two sends of one op to one key
//     with other records between them / out of order.
//
// # Consumer side, per process
//
//   - poll-skip / nonmonotonic-poll: a process's poll of a key begins past the
//     record after where its last ok poll of that key ended / at or before it.
//     Positions are kept by ok polls only; assign and subscribe keep only the
//     keys they name; keys named by an op's Rebalance, or else by a JSON
//     rebalance-log extra ([{"keys": [...]}, ...]), are reset; a crashed
//     process never returns. The EDN importer reads Jepsen's :rebalance-log
//     into Rebalance and keeps its text in Extra, which is then not read.
//     Unreadable logs give one warning for the whole history.
//     Options.SubscribeAllowsPollSkip exempts subscribed consumers.
//   - int-poll-skip / int-nonmonotonic-poll: the same inside one op, except for
//     keys rebalanced during it.
//
// Records a failed op wrote are never skipped (skipped.go): a
// read_uncommitted consumer puts aborted records into the version order, and
// a read_committed consumer passes over them, as it must. Poll-skip,
// int-poll-skip and lost-delivery discount them; transaction markers are not
// records and are never in the version order.
//
// # Consumer side, per group
//
// A record is processed by a group when an ok op of a member (an op with that
// Group) returned it; an info or fail poll fetched records that may never
// have been processed, so it counts for neither anomaly.
//
//   - duplicate-delivery: one record processed by two ok ops of the group.
//   - lost-delivery: a record below the highest offset the group committed ok
//     (commit mops in any ok op of a member: commit, txn, or a poll that
//     committed before processing) that no member processed. Only
//     records certainly in the log count (writer took effect, or read by an ok
//     op). It assumes the group started from the beginning of each partition.
//
// # Transactions
//
//   - G1a: an ok op read a value whose txn or send failed. When a failed op
//     and another op both sent the value (a copier re-copying after an
//     abort, a rebalance or fencing), the read counts only if it was at an
//     offset the failed send reported, or at none where a send that took
//     effect (ok, or info proven by a read) landed; a send that took effect
//     without a known offset leaves only the failed send's own offset as
//     proof. Such a value's writer is its ok (else info) sender.
//   - precommitted-read (Jepsen's definition): an op read a value it sent
//     itself; Kafka hides a transaction's records from every poller until it
//     commits.
//   - torn-transaction (torn.go): a committed txn op (ok, or info with a
//     value an ok op read) some of whose writes an ok op read while others
//     no ok op read although readers covered them (an ok op read the key
//     past the write, or the final reads covered the key). A missing write
//     is also lost-write or unseen where those rules place it; all are
//     reported.
//   - interleaved-transaction (torn.go): on one key, a write of a committed
//     txn op above a write of a later txn op of the same process (its late
//     write landed inside the next transaction). Nothing is lost by it
//     alone; a write the later txn's abort took is torn-transaction too.
//   - G0 / G1c: cycles in the dependency graph over ok ops that send (ops that
//     only read have no outgoing edge, so lie on no cycle). wr: T1 sent a value
//     T2 read. ww (Options.WWDeps): T1's value directly precedes T2's in a
//     key's version order. G0 is a cycle of ww edges only, G1c one with a wr
//     edge. Strongly connected components come from an iterative Tarjan; each
//     yields one case with a shortest cycle (by BFS) through one of its nodes
//     or wr edges.
//
// # Liveness
//
// Result.Liveness holds findings about progress; none changes Valid or the
// anomalies. A client-hang op (histories.FClientHang: a client call that
// outlived its timeout by a grace) is a finding, not an operation: Check
// lists each and no detector judges it. A malformed one is an error naming
// the op and field.
//
// The rest is measured in pass 1 (progress.go, backlog.go, liveness.go),
// which keeps the completion time of each ok send, poll and txn (8 bytes an
// op), the spans in which records waited for the workload, and the fault
// windows, and judges them once the history has ended. Only the workload's
// progress counts (KindLiveness): an ok poll or txn is progress when it
// delivered or sent records, or returned nothing while no record waited;
// the final reads never count.
//
//   - Fault windows come from the nemesis ops, read by histories.FaultOf
//     (the convention's "<kind>-start"/"<kind>-stop", the older names and
//     Jepsen's): a start opens one, a stop closes the oldest open window of
//     its kind, an instantaneous fault acts at its op. A window never
//     stopped holds to the end of the history.
//   - Max unavailability, per kind: the longest time with no ok op of the
//     kind while it was in use (from its first op to its last), whether a
//     fault window overlapped it, the longest that did, and the longest part
//     after the last heal (the end of the last fault window).
//   - Recovery, per kind: from the last heal to the kind's first ok op after
//     it. Ops of the kind invoked for RecoveryWindowNs (10 s) after the heal
//     and no ok one is never-recovered, and Liveness.Live is false; a run
//     that stopped trying sooner leaves it unmeasured. Not measured while a
//     fault never healed.
//   - Not recovered: a heal op whose health check after it gave up
//     (histories.NotRecoveredOf: the fault was undone, and the cluster
//     stayed short of replicas or brokers for as long as the harness
//     waited). Each is listed with what stayed broken, and Liveness.Live
//     is false.
//   - Stalls: a fault window of at least a second in which a kind that had
//     ok ops before it had none (Redpanda's HANG).
//   - Worst realtime lag (Jepsen's :worst-realtime-lag): the longest time
//     from an ok send's completion (with an offset) to the first ok
//     workload op that read its value (the final reads are not the
//     workload's: without a workload reader there is no lag); pass 1 keeps
//     only the sends not yet read.
//
// # Linearizability
//
// CheckLinearizable (linearizable.go) is a second, independent verdict:
// each key's sends and polls against porcupine and the model of one
// partition log in model/partitionlog. It keeps a key's ops in memory, so it
// runs apart from Check's two passes, key by key, capped and time-limited.
//
// # Op indexes
//
// Indexes must increase and may skip (Jepsen's own test histories and any
// filtered history do); cases name the indexes the history gave.
//
// # Empty histories
//
// A history without an acknowledged send and without a record read gives
// every detector nothing to judge. It is still Valid (Valid means "no
// anomaly found", so kafkachaos check exits 0, and 1 keeps meaning
// anomalies), but Result.Warnings says that nothing was checked. Jepsen calls
// it invalid (:empty-transaction-graph).
//
// This package must not know about Kafka clients, clusters or the run
// directory: a history from Jepsen or another client is judged the same way.
package checkers
