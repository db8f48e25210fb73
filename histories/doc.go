// Package histories is the contract between the clients that run a Kafka
// workload and the checkers that judge it: the operation type, a durable JSONL
// writer, a streaming reader and Jepsen EDN import and export.
//
// A history is a sequence of Ops, one JSON object per line. Client ops (send,
// poll, txn, commit) carry micro-operations (Mop); assign and subscribe carry
// the keys they take; nemesis ops carry an opaque value.
//
// Writing: clients and the nemesis share one Recorder, which numbers and
// timestamps ops and appends each to a Writer as it happens (a crash leaves
// every whole line readable). Reading: a Reader (or a Source, which can be
// scanned repeatedly without holding the history in memory) checks every
// line and reports bad input as a *ParseError naming file, line and field.
// Reader.Scan decodes blocks of lines on every core and reuses an op's
// memory once its callback returned; callers Clone what they keep. EDNReader and AppendEDN/ExportEDN convert Jepsen kafka-workload
// histories; export then import gives back the same ops (a nemesis op
// recorded under an older name comes back under the current one).
//
// Fault events: every recorder names a fault's start FaultStart(kind) and
// its heal FaultStop(kind), an instantaneous fault's act the kind itself,
// and puts the kind in the op's value as "fault"; FaultOf reads that and
// the older names back, and is what every reader of fault windows uses.
// Jepsen's names (:kill, :start, :start-partition, ...) appear only in the
// EDN export.
//
// Indexes increase and may skip (Jepsen's own histories and filtered ones
// do); a Recorder numbers densely from 0, so the JSONL reader warns once at
// the first gap. A client-hang op (FClientHang, info, no invoke) carries a
// ClientHang value; both readers check it and report a malformed one as a
// *ParseError naming the field (value.call, value.timeout-ms, ...).
//
// Convention: the ops of the final reads (one process assigns every key
// from its beginning and reads to the end after healing) carry Extra
// "final": true, which both codecs keep (EDN import gives it back as the
// string "true"); checkers judge lost-after-read by it.
//
// The JSONL codec is hand-written (jsonscan.go, jsonl_*.go) because
// encoding/json is several times slower and allocates per field; see the
// Benchmark* functions.
//
// This package must not know about Kafka clients, clusters or checkers: a
// history written by another client library, or imported from Jepsen, is
// checked exactly like one recorded here.
package histories
