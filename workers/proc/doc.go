// Package proc runs a scenario's clients in worker processes of their own,
// one per worker position, so that a client crash is what a crashed
// service suffers: SIGKILL, with no close, no flush and no final commit;
// and a client can be frozen whole (SIGSTOP) past its session or
// transaction timeout, to wake up as a zombie that fencing must stop.
//
// A worker process is the harness's own binary started again (the test
// binary in tests): ServeIfChild, called first in main and TestMain, makes
// it one. It runs one position of the scenario's workload (workers.New
// with Options.Only) and records through the wire into the run's one
// history: every op goes to the harness, which stamps its index and time
// and appends it before the worker goes on, so an op is never in the
// history later than it began. Values and process ids come from the
// harness too, so they stay unique over the run.
//
// The harness side, Pool, keeps a worker process in every position: when
// one dies (killed by a fault, or of itself) its open ops are completed as
// info and a crash op ends each of its processes, and a successor with new
// process ids takes the position. Every worker process is tagged with its
// owner (pid and start time); one whose owner is gone is killed by Sweep,
// which a run calls before it starts its own.
//
// It must not know the cluster provider, the nemesis, checkers or models:
// faults reach it as Kill, Pause, Churn and Stall calls.
package proc
