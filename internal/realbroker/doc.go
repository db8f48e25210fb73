// Package realbroker is what the real-Kafka cluster providers
// (cluster/local: JVM processes in network namespaces; cluster/docker:
// containers) share: the KRaft broker configuration of a small test cluster,
// the admin requests behind readiness, topic creation, leaders, the
// active controller, the dynamic quorum's configuration and voter changes
// (KIP-853) and the fencing of a crashed group member, the
// topology of network cuts, and the nft and tc helpers both use the same
// way. Cluster puts these together as the part of a provider that does not
// depend on how its nodes run: a provider embeds it and supplies a Network
// (how a node's namespace is reached) and ProcessChecks (how what it did to
// a process is seen).
//
// It must not know how a node runs (process or container), how a fault is
// applied (which namespace, which command runner), nor anything of
// histories, checkers or clients: callers pass node ids, addresses and
// callbacks, and name themselves in its errors (Cluster's prefix). It speaks
// the interface package's types (cluster.TopicSpec, cluster.Quorum,
// cluster.ClientNode), so a provider hands them through unchanged, and must
// not import a provider.
package realbroker
