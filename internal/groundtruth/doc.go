// Package groundtruth generates histories of known truth for the checkers:
// it simulates a correct Kafka and records what its clients saw, so that
// the checkers can be tested against ground truth: a simulated history must
// check clean, and a history with exactly one injected anomaly (see Inject)
// must yield exactly that finding.
//
// The simulated cluster keeps one log per key (partition). Client processes
// run concurrently: each has at most one op in flight, and the simulator
// interleaves invocations and completions of different processes. An op takes
// effect atomically at its completion, which is a legal linearization of
// anything a real broker does, and keeps every op's records for one key
// contiguous in the log (so int-send-skip is never legitimate here).
//
// What the simulator models, and the history conventions it follows:
//
//   - send: ok (landed, offsets known), fail (certainly not written), info
//     (written or not, both are simulated; the process then dies).
//   - txn: sends and polls committed or aborted as a unit. Committed = ok,
//     aborted = fail (aborted records and the transaction's control marker
//     occupy offsets that read_committed readers never return; the fail
//     completion carries the offsets the producer was told, which checkers
//     must not use for version orders). A txn never reads its own writes.
//     Offsets of a committed txn are therefore not dense: a marker follows
//     every committed or aborted txn on every key it wrote, so checkers must
//     compare positions in the version order, never raw offset+1.
//   - poll: reads, per assigned key, a contiguous run of visible records from
//     the process's position; no skips, monotonic. assign keeps positions of
//     keys that stay assigned and starts new keys at offset 0.
//   - consumer group "g": subscribe, polls carrying a Rebalance when the
//     member's keys changed, and a commit (of positions, the next offsets to
//     consume) after every poll that returned records. Keys change owner only
//     at commit points, and a new owner starts at the committed offset, so a
//     correct group neither re-delivers nor loses.
//   - crash: a single `info crash` op; the process id never returns and a
//     fresh process takes its place.
//   - final reads: a fresh process assigns every key and polls to the end;
//     its ops carry Extra "final": true, as the client's final reads do.
//   - ReadUncommitted appends read_uncommitted consumers that return every
//     record of each key, aborted ones included (markers are not records).
//
// Two front ends share the simulator: Gen, a rapid generator of small,
// shrinkable histories for property tests, and Generate, which streams a large
// history to JSONL in constant memory per key.
//
// This package must not know the checkers: it produces ground truth from a
// model of Kafka, never from what a checker accepts.
package groundtruth
