// Package docscheck holds the tests that keep the repository's documents
// standing alone: no document names a path of the machine it was written
// on, no link leaves the repository, every `make` target the README and
// docs/USAGE.md show exists, and the README's test command is the one
// .ci/run runs. It runs inside make test like any other package.
//
// It knows the repository layout (the module root two directories up) and
// nothing of what the documents say.
package docscheck
