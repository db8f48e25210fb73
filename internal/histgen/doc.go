// Package histgen writes large synthetic histories for the benchmarks and
// the performance figures: a correct simulated Kafka workload
// (internal/groundtruth) of a given size, keys and processes, with a given
// number of lost writes and duplicates planted in it as the history streams
// out, deterministic by seed.
//
// Planting works on the stream, so memory stays that of the simulator's
// logs whatever the size:
//
//   - a lost write is an ok send whose value no later op reads: every
//     record of it is dropped from later polls and txns, so readers pass
//     over it (they also report poll-skip, and group members that commit
//     past it lost-delivery, as a real loss would make them).
//   - a duplicate is a retried append: of an ok send with two values for
//     one key at adjacent offsets, the completion reports only the first,
//     and every read of the second reads the first instead, so one value
//     sits at two offsets.
//
// Planted counts only what certainly shows in the history: a lost write
// when its send completed ok, a duplicate when a read saw the value at its
// second offset.
//
// This package must not know the checkers: what it plants follows from its
// own rules above, never from what a checker reports.
package histgen
