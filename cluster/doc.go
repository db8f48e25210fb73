// Package cluster is the interface to the Kafka cluster a run talks to: the
// Provider interface, the optional fault hooks and the Spec a run asks for.
// The providers live one package each below it: cluster/embedded (franz-go's
// kfake in process), cluster/local (Kafka as local processes) and
// cluster/docker (Kafka in containers), so that code which only needs the
// interface (nemesis, runner) links none of them.
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
