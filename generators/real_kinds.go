package generators

// Fault kinds only real brokers support (the local and docker providers):
// the kernel-level faults of nemesis/real.go. KindKill, KindPause and
// KindPartition also take Params.Target on real brokers.
const (
	// KindCleanRestart shuts Params.Target down with SIGTERM for the window.
	KindCleanRestart = "clean-restart"
	// KindRollingRestart restarts every broker cleanly in turn, waiting
	// Params.Delay after each.
	KindRollingRestart = "rolling-restart"
	// KindIsolateLeader cuts the leader of key 0 from its followers; the
	// clients still reach it.
	KindIsolateLeader = "isolate-leader"
	// KindIsolateLeaderReplication cuts only the replication traffic (the
	// broker listener) between the leader of key 0 and its followers; the
	// controller quorum and the clients still reach it, so it stays leader
	// and shrinks its ISR to itself.
	KindIsolateLeaderReplication = "isolate-leader-replication"
	// KindBridge joins two sides of the cluster through one node only.
	KindBridge = "bridge"
	// KindCutClients cuts the clients from Params.Target.
	KindCutClients = "cut-clients"
	// KindPacketLoss drops Params.Percent of Params.Target's packets.
	KindPacketLoss = "packet-loss"
	// KindSlowLink caps Params.Target's links at Params.BitsPerSecond.
	KindSlowLink = "slow-link"
)

// Fault targets (Params.Target), as nemesis.Target spells them.
var targets = []string{"one", "leader", "controller", "minority", "majority", "all", TargetReplicas}

// realCapability is the capability a real-broker kind needs; every network
// kind needs what partitions need (namespaces and rules).
func realCapability(kind string) string {
	switch kind {
	case KindCleanRestart, KindRollingRestart:
		return "kill" // a provider that restarts nodes; the hook is checked when the schedule is built
	case KindIsolateLeader, KindIsolateLeaderReplication, KindBridge, KindCutClients, KindPacketLoss, KindSlowLink:
		return "partition"
	case KindLatency, KindDelayedRequests:
		return "proxy"
	case KindReassign:
		return "reassign"
	case KindRemoveBroker:
		return "unregister"
	case KindAddBroker:
		return "add-broker"
	case KindClockSkew:
		return "clock"
	case KindPowerLoss, KindDiskFault:
		return "disk"
	case KindRemoveVoter:
		return "quorum"
	}
	return ""
}

// validateReal checks the parameters real-broker faults read.
func (f Fault) validateReal(field string) error {
	if err := f.validateMembership(field); err != nil {
		return err
	}
	if err := f.validateClock(field); err != nil {
		return err
	}
	if err := f.validateDisk(field); err != nil {
		return err
	}
	if err := f.validateRemoveVoter(field); err != nil {
		return err
	}
	if err := f.validateLink(field); err != nil {
		return err
	}
	if t := f.Params.Target; t != "" {
		ok := false
		for _, want := range targets {
			ok = ok || t == want
		}
		if !ok {
			return bad(field+".params.target", "%q is not one of %v", t, targets)
		}
		if len(f.Params.Nodes) > 0 {
			return bad(field+".params", "target %q and nodes %v: give one or the other", t, f.Params.Nodes)
		}
	}
	if err := f.validateProxy(field); err != nil {
		return err
	}
	switch {
	case f.Kind == KindPacketLoss && (f.Params.Percent < 1 || f.Params.Percent > 100):
		return bad(field+".params.percent", "%d, want 1..100", f.Params.Percent)
	case f.Kind == KindSlowLink && f.Params.BitsPerSecond <= 0:
		return bad(field+".params.bits-per-second", "%d, want > 0", f.Params.BitsPerSecond)
	case f.Kind == KindLatency && f.Params.Toxic == "bandwidth" && f.Params.BitsPerSecond < 8192:
		return bad(field+".params.bits-per-second", "%d, want >= 8192 (the bandwidth toxic counts whole KB/s)", f.Params.BitsPerSecond)
	case f.Kind != KindPacketLoss && f.Params.Percent != 0:
		return bad(field+".params.percent", "only packet-loss reads it (kind %s)", f.Kind)
	}
	return nil
}
