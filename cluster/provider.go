package cluster

import "context"

// Provider is a Kafka cluster a run can start, inspect and stop.
//
// Start must be called once before anything else; Stop releases everything
// Start created (processes, listeners, namespaces, containers) and may be
// called more than once. Bootstrap, Nodes and Capabilities are valid between
// Start and Stop; before Start, Capabilities already answers for the
// capabilities KnownBeforeStart names.
type Provider interface {
	// Name is the provider's short name, as a user selects it ("embedded").
	Name() string
	// Start brings the cluster up and creates spec's topics; it returns
	// only once the cluster serves requests.
	Start(ctx context.Context, spec Spec) error
	// Stop tears the cluster down. It is idempotent.
	Stop(ctx context.Context) error
	// Bootstrap is the bootstrap.servers string for clients.
	Bootstrap() string
	// Nodes lists the brokers, including ones that are currently down.
	Nodes() []Node
	// Leader returns the node id leading topic/partition, or an error when
	// the partition does not exist or has no leader.
	Leader(ctx context.Context, topic string, partition int32) (int32, error)
	// CreateTopics creates topics; creating an existing topic is an error.
	CreateTopics(ctx context.Context, topics ...TopicSpec) error
	// Capabilities lists the fault hooks this provider implements.
	Capabilities() []Capability
}

// Node is one broker.
type Node struct {
	ID   int32
	Addr string // host:port clients connect to
	Up   bool   // false while a fault has taken it down
}

// Capability names a fault hook a provider supports. Each capability is
// backed by an optional interface in hooks.go that the provider implements.
type Capability string

const (
	// CapKill: NodeKiller (a node goes down abruptly and comes back).
	CapKill Capability = "kill"
	// CapPause: NodePauser (a node stops answering but keeps connections).
	CapPause Capability = "pause"
	// CapPartition: Partitioner (network partitions between nodes).
	CapPartition Capability = "partition"
	// CapLeaderMove: LeaderMover (leadership moves and elections).
	CapLeaderMove Capability = "leader-move"
	// CapRequestFaults: RequestFaulter (per-request delays, dropped
	// connections and errors answered after a write was applied).
	CapRequestFaults Capability = "request-faults"
	// CapProxy: Proxier (toxics on the proxies between the run's clients
	// and each broker: latency, held requests). A provider that has it
	// routes the clients of a run whose Spec is Proxied through proxies.
	CapProxy Capability = "proxy"
)

// KnownBeforeStart reports whether a provider's support of c is fixed by what
// kind of provider it is, so that it can be asked before Start: request
// faults and leader moves exist only where the harness answers the requests
// itself (the embedded cluster), proxies only where the harness can point a
// broker's advertised listener at one (the real brokers), whatever the
// machine. Kill, pause and
// partition depend on what Start finds (root, nftables, a container engine).
// Reassignments and unregistrations exist only on the real brokers.
// A movable clock is a preload library the provider has or lacks.
func KnownBeforeStart(c Capability) bool {
	if c == CapQuorum {
		return true // a provider formats a dynamic quorum when its Spec asks, or never
	}
	return c == CapDisk || c == CapRequestFaults || c == CapLeaderMove || c == CapProxy || c == CapReassign || c == CapUnregister || c == CapAddBroker || c == CapClock
}

// Supports reports whether p lists capability c.
func Supports(p Provider, c Capability) bool {
	for _, have := range p.Capabilities() {
		if have == c {
			return true
		}
	}
	return false
}
