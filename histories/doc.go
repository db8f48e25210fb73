// Package histories is the contract between the clients that run a Kafka
// workload and the checkers that judge it: the operation type, a durable JSONL
// writer, a streaming reader and Jepsen EDN import and export.
//
// A history is a sequence of Ops, one JSON object per line. Client ops (send,
// poll, txn, commit) carry micro-operations (Mop); assign and subscribe carry
// the keys they take; nemesis ops carry an opaque value.
//
// This package must not know about Kafka clients, clusters or checkers: a
// history written by another client library, or imported from Jepsen, is
// checked exactly like one recorded here.
package histories
