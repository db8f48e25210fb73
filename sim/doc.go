// Package sim runs a scenario as a deterministic simulation: a kfake
// cluster of brokers, franz-go (kgo) recording workers and the scenario's
// faults, all inside one testing/synctest bubble on kfake's in-memory
// network, so a run of seconds takes milliseconds of wall time and the
// same seed replays the same run.
//
// What it is for: many draws a minute (exploration, shrinking with one run
// per candidate), exact replay of a failing seed, and franz-go as a second
// client under test beside confluent-kafka-go. Its workers write the same
// history format as client/ and follow the same recording rules (every
// invoke completes once on every path; fail only when no attempt can have
// taken effect, info otherwise), and a run is judged by checkers and model
// exactly as runner judges one.
//
// Determinism. Virtual time orders everything the workers and faults do:
// each worker's timer is offset by a seeded, nanosecond-precise jitter so
// that no two events tie at one instant, and faults are injected at quiet
// points (synctest.Wait). Every random choice of the harness comes from the
// seed; kfake's own random picks (partition leaders, producer ids) are
// overridden (leaders are placed by the harness after every change) or
// canonicalized (producer ids are numbered by first appearance in the
// event log). The random sources of the process (math/rand's global
// source, crypto/rand, which kfake's process-wide random buffer reads
// from) are seeded by Child, which runs exactly one draw per process: a
// draw is run by re-executing a test binary (Spawn). What still is not
// seeded is the Go runtime's own choices (map order, select, goroutine
// interleaving at one instant); EventLog, compared across runs of one seed,
// is the measure of how far replay is exact.
//
// It must not know checkers' rules or model's table (it calls their public
// API and nothing else), the real-cluster providers, nor confluent-kafka-go:
// this package is the simulation and the franz-go workers only.
package sim
