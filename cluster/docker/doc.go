// Package docker is the cluster provider "docker": real Apache Kafka brokers
// (KRaft, combined broker+controller nodes) in containers started with
// testcontainers-go, on a Docker network created per run.
//
// The image is apache/kafka:<version> when it can be pulled; otherwise
// kafkachaos/kafka:<version>-<recipe digest>, built here once from a
// debootstrapped Debian, a headless Java 17, libfaketime and
// internal/kafkadist's jars, and configured from the
// environment the same way (KAFKA_FOO_BAR -> foo.bar, CLUSTER_ID).
//
// Each node has a fixed address on the run's network, which is also the
// address it advertises: the test process reaches it directly over the
// network's bridge, brokers reach each other over the same network. Faults
// are real: kill is SIGKILL through the engine, pause is the cgroup freezer
// (docker pause), partitions and packet loss are nftables rules inside the
// containers' network namespaces entered from the host, slow links are tbf
// qdiscs (this kernel has no netem: that is bandwidth, not added latency —
// the same honest mechanism as cluster/local).
//
// Below the network, the local provider's mechanisms, in containers:
// clock skew (clock.go; such a run always runs this package's image, even
// where apache/kafka can be pulled) preloads libfaketime, which the image
// carries, into each broker's JVM, its offset in a control file of a
// host directory bind-mounted into the container and rewritten by
// SkewClock, every move read back by a LogAppendTime probe; power loss and
// disk faults (disk.go) serve internal/lazyfs on the host under each node's
// host directory and bind-mount it as the container's data directory (a
// power loss is docker kill, the unsynced writes discarded, the container
// started again). Both need runs whose Spec asks (Clocks, LazyDisks);
// lazy disks need root, /dev/fuse and an engine on this host. A run's host
// directories live under $TMPDIR/kafkachaos-docker/<run id> with an owner
// file, and go with its containers (hostdir.go).
//
// The image's tag is kafkachaos/kafka:<version>-<digest of its recipe>
// (packages, entrypoint, logging config), so changing any of them builds
// a new image rather than reusing a stale one.
//
// The Ryuk reaper is disabled (its image cannot be pulled without a
// registry). Instead every container and network carries the run id and its
// owner process in labels: Stop removes the run's, and Start first removes
// those whose owner process is gone (CleanLeftovers).
//
// Running the chaos suite on it (as root; the first run builds the image,
// later runs reuse it):
//
//	scripts/dockerd.sh start            # an engine of our own at EngineHost
//	go run ./cluster/docker/buildimage  # pull apache/kafka or build kafkachaos/kafka once
//	KAFKACHAOS_CLUSTER=docker KAFKACHAOS_PROFILE=short go test -count=1 -run TestChaosDocker -v .
//	go run ./cmd/kafkachaos clean       # nothing left: containers, networks, rules
//	scripts/dockerd.sh stop
//
// DOCKER_HOST may stay unset: when it is, and EngineHost's socket exists,
// the provider uses that engine. `kafkachaos run --cluster docker` picks
// this provider for one scenario. KAFKACHAOS_DOCKER=1 opts in to this
// package's own container tests.
//
// In Go (TestChaosDockerClusterFaults runs this sequence and checks each effect):
//
//	p := docker.New(docker.Options{})
//	err := p.Start(ctx, cluster.Spec{RunID: "example", RunDir: dir, // broker logs: <RunDir>/kafka-<id>/n<N>/broker.log
//		Topics: []cluster.TopicSpec{{Name: "orders", Partitions: 3, MinInsyncReplicas: 2}}})
//	defer p.Stop(ctx) // the containers, the network and the FORWARD rule go
//	err = p.Partition(ctx, [][]int32{{docker.ClientNode, 1, 2}, {3}}) // broker 3 cut off
//	err = p.HealAll(ctx)
//
// What does not depend on how a node runs (admin requests, readiness,
// health, fencing, the bookkeeping of cuts, the nft and tc plumbing of
// loss and slow links, the waits after a restart) is internal/realbroker's
// Cluster, which Provider embeds; this package keeps the containers, the engine's state, the run's network and the netns entry.
//
// It must not know about histories, workloads or checkers: it runs brokers
// and breaks them on request, nothing else.
package docker
