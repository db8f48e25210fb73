// Package embedded is the cluster provider that runs franz-go's kfake
// inside the test process: several brokers on loopback ports, no Java, no
// Docker, the default for `go test ./... -run Chaos` on a bare machine.
//
// It implements cluster.Provider and the hooks kfake can honour (NodeKiller,
// NodePauser, LeaderMover, RequestFaulter, HealthChecker, EffectVerifier),
// and client.MemberFencer's FenceClient. Fake exposes the kfake cluster
// itself for tests that need a fault no hook describes.
//
// This package is the one place that knows how kfake differs from Kafka:
// every difference, and what the provider does about it, is listed below,
// and the workarounds are here, not in the clients. It must not know about
// histories, workloads, nemeses or checkers, and nothing above cluster/
// should need it except the place that picks a provider by name (runner's
// registry) and tests.
//
// Behavior:
//   - One log per partition, shared by every broker: no replication, so no
//     ISR to shrink, no follower to fall behind, no unclean election, and
//     min.insync.replicas is stored but never enforced. acks=all is answered
//     as soon as the write is in that one log. Loss through failover cannot
//     happen here; it needs cluster/local or cluster/docker.
//   - Kill is kfake's RemoveNode: the listener closes and the provider's
//     control drops every request that still arrives over an open
//     connection. The log survives. kfake re-elects a random leader for
//     every partition of every topic on each RemoveNode and AddNode
//     (Restart), and group and transaction coordinators are a hash over
//     the live brokers, so a kill or restart moves them; group and
//     transaction state is cluster-wide and moves with them intact.
//   - A node restarts on its own port. The brokers' ports are leased from
//     below the kernel's ephemeral range (ports.go), so that while a node
//     is down no other cluster or connection on the machine takes its port
//     (behind proxies too, whose upstreams therefore never change).
//   - Pause holds each request reaching the node in a sleeping control
//     until Resume; connections stay open and other nodes are served
//     meanwhile (kfake serves requests on one connection in order).
//   - Leader moves are metadata only: MoveTopicPartition and
//     ShufflePartitionLeaders change the leader and bump the leader epoch
//     with no data moved or truncated. A shuffle picks a random broker per
//     partition, which may be the old leader: the provider's check is that
//     every epoch grew, not that every leader changed.
//   - Lost acknowledgements (ErrorAfterApply) are kfake Faults on Produce
//     with REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND, the two
//     codes kfake answers after appending. Delays and dropped connections
//     are the provider's one kfake control (controls.go), which runs the
//     installed faults in install order; a control that answers a request
//     bypasses kfake Faults, so a dropped request never reaches one.
//   - Idempotent producers: kfake keeps Kafka's five-batch window per
//     producer and partition and answers a duplicate with the offset the
//     batch was first written at, as Kafka does. Transactions write real
//     commit and abort markers, move the last stable offset, apply
//     sendOffsetsToTransaction's offsets only on commit, and abort a
//     transaction past transaction.timeout.ms.
//   - Group coordinator: OffsetFetch for a group that does not exist (never
//     joined, never committed) is answered GROUP_ID_NOT_FOUND by kfake,
//     where Kafka answers offset -1 per partition with no error; librdkafka's
//     Committed returns the error and its assign-time lookup stalls on it.
//     The provider answers such a fetch the Kafka way (conform.go) after
//     every fault has had its turn; a fetch naming several groups, some
//     existing, is left to kfake. Session timeouts are allowed down to
//     100ms (GroupMinSessionTimeout) so a crashed member is noticed within
//     a run. FenceClient is a kfake Fault answering UNKNOWN_MEMBER_ID to
//     the fenced member's group requests before the coordinator acts.
//   - Health has no ISR to wait for: every node up and listening and every
//     partition led is the whole cluster.
//   - Reassignments: kfake answers AlterPartitionReassignments with no
//     error and moves nothing (ListPartitionReassignments is always empty),
//     so the provider does not list cluster.CapReassign, and a scenario
//     with a reassign fault is refused before the run. KIP-848's
//     ConsumerGroupHeartbeat is served (group.protocol=consumer works here),
//     its heartbeat and session from group.consumer.* broker configs.
//
// Version notes:
//   - Written against kfake v0.0.0-20260918054303-01f206a7e32c (go.mod).
//     A kfake upgrade re-checks each entry above: TestOffsetFetchOfUnknownGroupIsNoOffset
//     fails if the correction stops being Kafka's answer, and removing
//     conform.go's OffsetFetch case shows whether kfake still needs it (the
//     client's assign-mode copier tests fail with GROUP_ID_NOT_FOUND when it
//     does).
//   - OffsetFetch: the correction answers both shapes, one group before v8
//     and a list of groups from v8; kfake's KIP-848 member checks (v9) are
//     not reached for a group that does not exist.
package embedded
