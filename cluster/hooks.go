package cluster

import (
	"context"
	"time"
)

// NodeKiller takes a broker down without a clean shutdown and brings it back.
// On real brokers that is SIGKILL and a restart; on the embedded cluster the
// node's listener closes and its open connections are dropped.
type NodeKiller interface {
	Kill(ctx context.Context, node int32) error
	Restart(ctx context.Context, node int32) error
}

// NodePauser freezes a broker (SIGSTOP, cgroup freezer, or requests held) and
// thaws it.
type NodePauser interface {
	Pause(ctx context.Context, node int32) error
	Resume(ctx context.Context, node int32) error
}

// Partitioner cuts the network into components: nodes in different
// components cannot talk. Heal removes every cut.
type Partitioner interface {
	Partition(ctx context.Context, components [][]int32) error
	Heal(ctx context.Context) error
}

// LeaderMover moves partition leadership.
type LeaderMover interface {
	MoveLeader(ctx context.Context, topic string, partition, node int32) error
	// ShuffleLeaders elects a random new leader for every partition.
	ShuffleLeaders(ctx context.Context) error
}

// RequestFault selects client requests to interfere with. Zero fields match
// everything.
type RequestFault struct {
	Keys  []int16 // Kafka API keys (0 = Produce, 1 = Fetch, ...)
	Nodes []int32
	// Topic, when set, selects produce requests to that topic only.
	Topic string
	// Probability that a matching request is acted on; 0 means always.
	Probability float64
}

// Installed is a request fault in place.
type Installed interface {
	// Remove uninstalls the fault; removing twice is harmless.
	Remove()
	// Hits counts the requests the fault has acted on.
	Hits() int
}

// RequestFaulter interferes with individual client requests.
type RequestFaulter interface {
	// Delay holds matching requests for d before the broker handles them.
	Delay(sel RequestFault, d time.Duration) (Installed, error)
	// DropConnections closes the client's connection instead of handling a
	// matching request: the request is certainly not applied.
	DropConnections(sel RequestFault) (Installed, error)
	// ErrorAfterApply applies matching produce requests and then answers
	// them with errCode (REQUEST_TIMED_OUT or
	// NOT_ENOUGH_REPLICAS_AFTER_APPEND): the classic lost acknowledgement.
	ErrorAfterApply(sel RequestFault, errCode int16) (Installed, error)
}
