package cluster

import (
	"context"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// Hooks that only real brokers can honour (processes that stop, kernels that
// drop packets). Like those in hooks.go they are optional: nemesis/ finds
// them by type assertion, and a provider implements only what it can do.

// ClientNode stands for the run's clients (the test process) wherever a hook
// takes node ids for network faults: cutting it from a broker cuts every
// client from that broker, and brokers may still talk to each other.
const ClientNode int32 = -1

// NodeStopper shuts a broker down cleanly (SIGTERM: controlled shutdown,
// leadership handed over, logs flushed) and starts it again.
type NodeStopper interface {
	StopNode(ctx context.Context, node int32) error
	StartNode(ctx context.Context, node int32) error
}

// LinkCutter cuts single links, keeping existing cuts, for topologies a
// partition into components cannot express: a bridge (1-2 and 2-3 up, 1-3
// cut) or clients cut from one broker. Partitioner.Heal removes them.
type LinkCutter interface {
	CutLinks(ctx context.Context, links [][2]int32) error
}

// ReplicationCutter cuts only the replication traffic between pairs of
// brokers — their broker listener, both ways — keeping existing cuts, while
// the controller listener and the clients' connections stay up. With
// combined broker+controller nodes a full cut of a leader from its
// followers also cuts it from the quorum (it is fenced); this one leaves it
// leader, so its ISR shrinks. Partitioner.Heal removes it.
type ReplicationCutter interface {
	CutReplication(ctx context.Context, links [][2]int32) error
	// ReplicationPorts names the ports a cut drops and those it leaves up,
	// for the nemesis op.
	ReplicationPorts() (cut, kept []int)
}

// PacketLoser drops a percentage (0..100) of the packets a node receives, at
// random; 0 removes the loss.
type PacketLoser interface {
	PacketLoss(ctx context.Context, node int32, percent int) error
}

// LinkSlower limits a node's link bandwidth; 0 removes the limit.
type LinkSlower interface {
	SlowLink(ctx context.Context, node int32, bitsPerSecond int64) error
	// SlowLinkMechanism says how the limit is enforced (e.g. "tbf"), for
	// the nemesis op: a bandwidth cap is not added latency.
	SlowLinkMechanism() string
}

// ControllerFinder names the active controller (the KRaft metadata quorum
// leader).
type ControllerFinder interface {
	ActiveController(ctx context.Context) (int32, error)
}

// CoordinatorFinder names the broker that coordinates a transactional id
// or a consumer group now (FindCoordinator), for faults aimed at a role.
type CoordinatorFinder interface {
	Coordinator(ctx context.Context, kind CoordinatorKind, key string) (int32, error)
}

// CoordinatorKind is FindCoordinator's key type.
type CoordinatorKind int8

const (
	CoordinatorGroup CoordinatorKind = 0 // a consumer group's
	CoordinatorTxn   CoordinatorKind = 1 // a transactional id's
)

// NetworkHealer removes every network fault of the run (cuts, loss, slow
// links) and resumes paused nodes; killed nodes stay down.
type NetworkHealer interface {
	HealAll(ctx context.Context) error
}

// RequestLogger logs the Kafka requests and responses that pass the
// proxies between the run's clients and each broker (kproxy's request
// log), for a run whose Spec asked for them (Proxied): every connection
// that begins from the call on, to the file at path, until close.
type RequestLogger interface {
	LogRequests(path string) (close func() error, err error)
}

// Proxier puts toxics on the proxies between the run's clients and each
// broker (kproxy), for a run whose Spec asked for them (Proxied): the
// brokers' own traffic and the harness's checks do not pass through them.
type Proxier interface {
	// AddToxic puts t, called name, on node's proxy and lists it back.
	AddToxic(ctx context.Context, node int32, name string, t kproxy.Toxic) error
	// HealToxics removes every toxic of every proxy and lists them back.
	HealToxics(ctx context.Context) error
	// HeldBy is how many requests the hold toxic name on node's proxy held.
	HeldBy(node int32, name string) (int64, error)
	// ProbeProxy times one request's round trip through node's proxy.
	ProbeProxy(ctx context.Context, node int32) (time.Duration, error)
}
