// Package testsummary reads the event streams of `go test -json` (one per
// go test invocation, as gotestsum --jsonfile saves them) and says what ran
// and what did not: packages and tests passed and failed, and every test
// that skipped, grouped by its skip message, so that a suite that silently
// did not run (no root, no Java, no engine) is named at the end of make test.
//
// It knows the test2json event format and nothing of this project: no
// package names, no environment variables, no clusters.
package testsummary
