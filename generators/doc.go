// Package generators describes one chaos run as plain data — a Scenario:
// cluster, keys, topic, producer and consumer configuration, workload mix
// and nemesis schedule — and draws scenarios at random: with rapid for
// property tests (small values that shrink to short schedules) and with a
// plain seeded generator for long runs.
//
// A Scenario is what scenario.json holds, and a saved scenario replays: it
// names everything a run needs and nothing it measured.
//
// This package must not know how a scenario is run: it never talks to a
// cluster, starts a client or reads a history. Fault kinds are names here;
// nemesis/ and runner/ give them meaning.
package generators

//go:generate go run ../internal/faultsdoc -o ../docs/faults.md
