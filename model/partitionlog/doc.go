// Package partitionlog is a porcupine model of one Kafka partition log: the
// sequential specification a key's sends and polls are checked against for
// linearizability.
//
// The state is the log, values in offset order. An Append takes effect at
// the offset its output names (histories.NoOffset when the client did not
// learn it; the entry then needs an offset of its own). Offsets only grow
// and may leave gaps, as transaction markers and aborted records do. A Read
// is legal when its records are consecutive entries of the log with exactly
// those offsets and values.
//
// This package must not know how operations are recorded or where they come
// from: checkers.CheckLinearizable turns a history into its operations, and
// decides which may or may not have happened. It sees only porcupine
// operations whose inputs are Append and Read.
package partitionlog
