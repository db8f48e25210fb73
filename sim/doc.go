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
// exactly as runner judges one. Fault ops follow histories' event
// convention, as the runner's do (histories.FaultStart and FaultStop around
// a window, the kind alone for an instantaneous fault, the kind in the
// value), so
// liveness reads a simulated draw's fault windows as a real run's; a fault
// counts as fired, and has its op, only once it took effect (a consumer's
// crash or churn when the consumer acts on it). Each fault kind it runs is
// one entry of builders.go's table, keyed by kind: exactly the kinds
// generators.KindsFor("sim") claims.
//
// Determinism. Virtual time orders everything the workers and faults do:
// each worker's timer is offset by a seeded, nanosecond-precise jitter so
// that no two events tie at one instant, and faults are injected at quiet
// points (synctest.Wait). Every random choice of the harness comes from the
// seed; kfake's own random picks (partition leaders, producer ids) are
// overridden (leaders are placed by the harness after every change) or
// canonicalized (producer ids are numbered by first appearance in the
// event log). The random sources of the process (math/rand's global
// source, crypto/rand, and kfake's process-wide random buffer, which reads
// from it) are seeded, and the buffer emptied, by Child before each draw:
// draws are played in child processes of a test binary (Player), each
// child one draw after another, every draw starting from the random state
// a fresh process would have. What still is not seeded is the Go runtime's
// own choices (map order, select, goroutine interleaving at one instant);
// EventLog, compared across runs of one seed, is the measure of how far
// replay is exact.
//
// Running kfake and franz-go under synctest, and what is done about it
// (each is explained where it is done):
//   - A goroutine blocked on a sync.Mutex is not durably blocked: when the
//     mutex's holder waits on virtual time, the clock stops. kgo holds a
//     lock across a classic JoinGroup that commits wait on, so consumer
//     groups use KIP-848 (kgo.ServerSideBalancer, the session set on the
//     brokers); kgo loads a producer id under a mutex its sinks wait on, so
//     producers load it before any send; kfake's SleepControl makes its
//     control goroutines wait on a mutex, so delays hold requests on the
//     client's side of the connection. What still stalls (about 1 draw in
//     1000, a kgo consumer mutex) is detected by a watcher outside the
//     bubble and ends the draw as Stalled, never as a verdict.
//   - kgo's Close does not wait for a request goroutine still writing on a
//     connection it was opening, and a bubble whose main goroutine ends
//     first panics: a run waits a virtual second after closing its cluster.
//   - A crashed client's connections close and its dials fail after a
//     virtual second (failing at once lets kgo's fetch loop spin at one
//     instant); its group leave is bounded.
//   - kfake answers OffsetForLeaderEpoch for an earlier epoch with the log
//     start once a leader moved before a new batch was written; franz-go
//     reads that as truncation and rewinds to its reset offset, re-reading
//     the whole log. The cluster answers such requests itself, as Kafka
//     does (epochs.go). Without it every leader move under
//     commit-before-processing showed duplicate deliveries.
//   - Copiers: subscribing transactional ones only (a GroupTransactSession
//     per copier, KIP-848 group); at-least-once and assigning copiers are
//     refused, never run as something else. Space draws no copiers yet:
//     of 200 copier draws (Space with MaxCopiers 1) every read_committed
//     one held its model, but 5% ended Stalled (a busy retry of the
//     copier's InitProducerID after a node kill, FINDINGS.md); of the
//     draws with read_uncommitted watchers among 200 seeds, 3 of 21 broke
//     it (transactions of unknown outcome re-copying the same records,
//     FINDINGS.md); and a copier's replay is not yet exact.
//
// Replay is exact for the seeds the tests pin and for about 9 draws in 10
// of Space (BenchmarkReplayExactness); the rest diverge where events of
// different clients meet at one virtual instant inside kfake (a fetch
// woken by a produce) or where kgo's internal timers differ.
//
// This is not internal/groundtruth, which generates histories of a correct Kafka
// without running one, to test the checkers.
//
// It must not know checkers' rules or model's table (it calls their public
// API and nothing else), the real-cluster providers, nor confluent-kafka-go:
// this package is the simulation and the franz-go workers only.
package sim
