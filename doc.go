// Package kafkachaos is a Jepsen-style verification harness for Apache
// Kafka. The package itself holds only the chaos suite (run_test.go: the
// TestChaos* tests `make chaos` and `go test -run Chaos` run); the harness
// lives in its sub-packages, see README.md and runner/ for a run end to end.
package kafkachaos
