// Package embeddedtest starts embedded clusters (cluster/embedded) for
// other packages' tests, the way httptest starts servers: started for one
// test, stopped when it ends, its failure to start that test's failure.
//
// It is for tests only. It knows a scenario's keys and topic
// configuration, to give a test the topics its workers expect, and
// nothing of workloads, nemeses or checkers; runner.ClusterSpec stays the
// one full mapping from a scenario to a cluster spec (tests below runner
// cannot import it: runner imports them).
package embeddedtest
