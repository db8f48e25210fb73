// Package local is the cluster provider "local": real Apache Kafka brokers
// (KRaft, combined broker+controller nodes) as JVM processes on this machine,
// with jars from internal/kafkadist.
//
// As root each node runs in its own network namespace (kc-<run>-n<id>) on a
// bridge the run creates (kcb<run>), so faults are kernel events: kill is
// SIGKILL, pause is SIGSTOP, partitions and packet loss are nftables rules
// inside the namespaces, slow links are tbf qdiscs. Without root it falls
// back to loopback addresses with kill and pause only, and says so.
//
// Every process, namespace, link and rule carries the short run id, and an
// owner file records which live process a run belongs to, so CleanLeftovers
// can remove what crashed runs left without touching runs still alive;
// CleanRun removes one such run (a test that killed a harness cleans up
// after it with RunsOwnedBy and CleanRun).
//
// A failed Start keeps, in the run's directory, its error (start-error.txt)
// and each node's command lines and output: format.log for the storage
// format step, broker.log for the broker JVM.
//
// A run whose Spec asks for Clocks starts each JVM with libfaketime
// preloaded (Debian's faketime), its offset in a control file in the
// node's directory: SkewClock moves one broker's wall clock (nanoTime stays
// real) and returns once the broker's own LogAppendTime reads the new
// clock (clock.go).
//
// A run whose Spec asks for DynamicQuorum formats a dynamic KRaft quorum
// (Kafka 3.9+; quorum.go): each node's directory id is the harness's, all
// of them in every node's kafka-storage format --initial-controllers (kept
// in format.log), and RemoveVoter and AddVoter change the voter set while
// every node runs, each verified by DescribeQuorum.
//
// FenceClient removes a "crashed" consumer's group members at the
// coordinator before the client closes its librdkafka handle, so that the
// close commits and leaves nothing (the provider is a client.MemberFencer).
//
// Use (TestLocalClusterFaults runs this sequence and checks each effect):
//
//	p := local.New(local.Options{}) // KAFKA_VERSION or the pinned release
//	defer p.Stop(ctx)               // processes, namespaces, bridge and rules go
//	err := p.Start(ctx, cluster.Spec{RunID: "example", RunDir: "runs/example",
//		Topics: []cluster.TopicSpec{{Name: "t", Partitions: 3, MinInsyncReplicas: 2}}})
//	leader, _ := p.Leader(ctx, "t", 0)
//	err = p.Partition(ctx, [][]int32{{leader}, followers}) // then p.Heal(ctx)
//	err = p.CutLinks(ctx, [][2]int32{{local.ClientNode, leader}}) // clients cut from one broker
//	err = p.Kill(ctx, leader)                                    // then p.Restart(ctx, leader)
//
// What does not depend on how a node runs (admin requests, readiness,
// health, fencing, the bookkeeping of cuts, the nft and tc plumbing of
// loss and slow links, the waits after a restart) is internal/realbroker's
// Cluster, which Provider embeds; this package keeps the JVMs, namespaces, bridge and /proc checks.
//
// It must not know about histories, workloads or checkers: it runs brokers
// and breaks them on request, nothing else.
package local
