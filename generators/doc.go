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
// cluster, starts a client or reads a history. Each fault kind is one
// entry of the registry (Registry, one kind_<name>.go file each): its
// parameters, the capability it needs, when it can act, what it takes out
// and what it must not overlap, its heal budget and its draw rule; nemesis/
// and the providers' builders (runner, sim) give it its effect.
package generators

//go:generate go run ../internal/faultsdoc -o ../docs/faults.md
