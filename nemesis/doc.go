// Package nemesis injects faults into a run on a timeline and records each
// start and stop in the history as an op of process -1.
//
// A Fault starts and stops (heals); Stop is idempotent. The Runner walks a
// Schedule and guarantees that every fault it started is healed when the
// schedule ends, when the run's context is cancelled, when a fault fails,
// and when anything panics (it heals, then re-panics). A heal that fails is
// never dropped: Run's error then wraps ErrHeal once per fault, naming it,
// joined with whatever else ended the run (its deadline at a normal end), so
// the runner can tell an unhealed cluster from a schedule cut short. A
// cluster that stays unhealthy after a heal that worked is not the
// harness's failure: the stop op records it and the schedule goes on.
//
// Faults reach the cluster only through the hook interfaces of cluster/
// (NodeKiller, RequestFaulter, ...). Faults on the clients (crashes,
// churn, stalls) are built where the workers live (runner, workers) and run
// here like any other Fault. This package must not know about checkers, and
// must not know which provider runs the cluster.
package nemesis
