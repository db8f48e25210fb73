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

// HealthChecker says whether the cluster is whole: every broker up and
// serving, every partition led with its replicas in sync. nemesis/ asks it
// before faults and after heals, as etcd's robustness suite checks cluster
// health around each failpoint: a fault started on an unhealthy cluster
// proves nothing, and a heal counts only once the cluster is whole again.
type HealthChecker interface {
	// Healthy returns nil when the cluster is whole, or an error naming
	// what is not. It answers at once (one probe); callers poll it within
	// their own bound.
	Healthy(ctx context.Context) error
	// HealthChecked says what Healthy checks, for the nemesis ops.
	HealthChecked() string
}

// Effect names what a fault hook does, for EffectVerifier.
type Effect string

const (
	EffectKill       Effect = "kill"        // NodeKiller.Kill
	EffectRestart    Effect = "restart"     // NodeKiller.Restart, NodeStopper.StartNode
	EffectStop       Effect = "stop"        // NodeStopper.StopNode
	EffectPause      Effect = "pause"       // NodePauser.Pause
	EffectResume     Effect = "resume"      // NodePauser.Resume
	EffectCut        Effect = "cut"         // Partition, CutLinks, CutReplication
	EffectHeal       Effect = "heal"        // Partitioner.Heal
	EffectPacketLoss Effect = "packet-loss" // PacketLoser.PacketLoss
	EffectSlowLink   Effect = "slow-link"   // LinkSlower.SlowLink
	EffectLeader     Effect = "leader"      // LeaderMover
	EffectRequest    Effect = "request"     // RequestFaulter
	EffectToxic      Effect = "toxic"       // Proxier.AddToxic
	EffectToxicHeal  Effect = "toxic-heal"  // Proxier.HealToxics
)

// EffectVerifier is implemented by providers whose fault hooks return nil
// only once they have checked that the effect took place (the process is
// stopped, the rules read back match, the leader changed): a hook that
// could not verify returns an error, so the fault does not count as fired.
// Verified says what the hook for e checks, for the nemesis op; "" means
// the hook checks nothing beyond its call's success.
type EffectVerifier interface {
	Verified(e Effect) string
}

// VerifiedBy is what p's hook for e verifies, or "" when p says nothing.
func VerifiedBy(p any, e Effect) string {
	if v, ok := p.(EffectVerifier); ok {
		return v.Verified(e)
	}
	return ""
}

// TopicDeleter is implemented by providers that can delete topics. A
// cluster shared by many runs (runner.Reuse) deletes each run's topics
// once the run is over, so that a later run's faults act on its own
// partitions alone and the health checks judge those.
type TopicDeleter interface {
	DeleteTopics(ctx context.Context, topics ...string) error
}
