// Package cluster starts and stops the Kafka cluster a run talks to, behind
// one Provider interface: the embedded kfake cluster here, and later real
// brokers as local processes or containers.
//
// A provider answers where the cluster is (Bootstrap, Nodes), who leads a
// partition (Leader), makes the topics a scenario asks for (CreateTopics) and
// says which fault hooks it supports (Capabilities). The hooks themselves are
// small optional interfaces (NodeKiller, LeaderMover, ...) that nemesis/
// discovers by type assertion, so a provider only implements what it can do
// honestly.
//
// This package must not know about histories, workloads or checkers: it
// manages brokers, nothing else.
package cluster
