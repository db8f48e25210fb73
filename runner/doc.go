// Package runner runs one chaos scenario end to end: it makes the run
// directory and writes scenario.json first, starts the cluster, records a
// history while the workload runs and the nemesis schedule breaks things,
// heals everything, reads every key to its end, then checks the history file
// and writes results.json and the HTML report.
//
// It is the only package that knows every other one: generators (what to
// run), cluster (where), workers (the clients and their slots, which the
// client faults crash), client (the final reads), checkers and model (the
// verdict), report (the page). It must not judge a history itself, nor talk
// to Kafka except through workers, client and cluster: the history file is
// what gets checked, so any run directory can be re-checked later.
//
// How it builds each fault kind is one entry of the tables in builders.go,
// keyed by kind; what a kind is (its parameters, the capability it needs,
// the providers that draw it) is generators' to say, not this package's.
package runner
