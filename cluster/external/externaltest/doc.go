// Package externaltest stands in for a user's own cluster in tests of the
// external provider: the local provider's brokers (cluster/local), each
// network namespace running an sshd with a host key and an authorized key
// made for the test, and an inventory that reaches them over SSH alone:
// each node found by its JVM's run and node markers, started again by its
// command line, SSH as root with the test's key, the host keys in a
// known_hosts file.
//
// It must not know the external provider's internals: it writes an
// inventory, as a user would, and reads effects from outside (/proc on
// this machine).
package externaltest
