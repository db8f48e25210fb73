// Package ciworkflows holds the tests that keep the GitHub Actions workflows
// in .github/workflows from rotting: actionlint (as a library, without
// shellcheck, which is not installed here) must accept them, and every
// `make` target they call must exist in the Makefile. It runs inside make
// test like any other package.
//
// It knows the repository layout (the workflows and the Makefile two
// directories up) and nothing of what the workflows test.
package ciworkflows
