package nemesis

import (
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Real-broker fault kinds, as RealSpec.Kind names them.
const (
	RealKill           = "kill"            // SIGKILL, restart at stop
	RealPause          = "pause"           // SIGSTOP, SIGCONT at stop
	RealCleanRestart   = "clean-restart"   // SIGTERM, start at stop
	RealRollingRestart = "rolling-restart" // every node in turn, cleanly
	RealIsolate        = "isolate"         // target cut from peers and clients
	RealHalves         = "halves"          // minority | majority
	RealIsolateLeader  = "isolate-leader"  // leader | followers, clients reach both
	RealBridge         = "bridge"          // two sides joined by one node
	RealCutClients     = "cut-clients"     // clients cut from the target
	RealPacketLoss     = "packet-loss"     // random drops on the target
	RealSlowLink       = "slow-link"       // bandwidth cap on the target

	// RealIsolateLeaderReplication cuts the leader's replication from its
	// followers; the controller quorum and the clients still reach it.
	RealIsolateLeaderReplication = "isolate-leader-replication"
)

// RealKinds lists the kinds Real builds, in a fixed order.
func RealKinds() []string {
	return []string{RealKill, RealPause, RealCleanRestart, RealRollingRestart, RealIsolate, RealHalves,
		RealIsolateLeader, RealIsolateLeaderReplication, RealBridge, RealCutClients, RealPacketLoss, RealSlowLink}
}

// RealSpec describes one real-broker fault.
type RealSpec struct {
	Kind   string
	Target Target // for kill, pause, clean-restart, isolate, cut-clients, packet-loss, slow-link; "" = one
	// Percent of packets dropped (packet-loss), 1..100.
	Percent int
	// BitsPerSecond the links are capped at (slow-link).
	BitsPerSecond int64
	// Settle is the pause between nodes of a rolling restart.
	Settle time.Duration
}

// Real builds the fault spec describes against tg's provider, finding the
// hooks it needs by type assertion; a provider without them is an error
// that names the kind and the missing hook, never a milder fault.
func Real(tg Targeting, spec RealSpec) (Fault, error) {
	prov := tg.Provider
	target := spec.Target
	if target == "" {
		target = TargetOne
	}
	missing := func(hook string) error {
		return fmt.Errorf("fault %s needs the %s hook, which cluster provider %q lacks", spec.Kind, hook, prov.Name())
	}
	switch spec.Kind {
	case RealKill:
		if k, ok := prov.(cluster.NodeKiller); ok {
			return KillTarget(k, tg, target), nil
		}
		return nil, missing("NodeKiller")
	case RealPause:
		if p, ok := prov.(cluster.NodePauser); ok {
			return PauseTarget(p, tg, target), nil
		}
		return nil, missing("NodePauser")
	case RealCleanRestart, RealRollingRestart:
		s, ok := prov.(cluster.NodeStopper)
		if !ok {
			return nil, missing("NodeStopper")
		}
		if spec.Kind == RealRollingRestart {
			return RollingRestart(s, tg, spec.Settle), nil
		}
		return CleanStopTarget(s, tg, target), nil
	case RealPacketLoss:
		if pl, ok := prov.(cluster.PacketLoser); ok {
			return PacketLoss(pl, tg, target, spec.Percent), nil
		}
		return nil, missing("PacketLoser")
	case RealSlowLink:
		if ls, ok := prov.(cluster.LinkSlower); ok {
			return SlowLink(ls, tg, target, spec.BitsPerSecond), nil
		}
		return nil, missing("LinkSlower")
	}
	return partition(tg, spec.Kind, target, missing)
}

// partition builds the network partitions, which all heal through the
// Partitioner hook.
func partition(tg Targeting, kind string, target Target, missing func(string) error) (Fault, error) {
	p, ok := tg.Provider.(cluster.Partitioner)
	if !ok {
		return nil, missing("Partitioner")
	}
	lc, lcOK := tg.Provider.(cluster.LinkCutter)
	switch kind {
	case RealIsolate:
		return Isolate(p, tg, target), nil
	case RealHalves:
		return Halves(p, tg), nil
	case RealIsolateLeader:
		return IsolateLeader(p, tg), nil
	case RealIsolateLeaderReplication:
		rc, ok := tg.Provider.(cluster.ReplicationCutter)
		if !ok {
			return nil, missing("ReplicationCutter")
		}
		return IsolateLeaderReplication(rc, p, tg), nil
	case RealBridge, RealCutClients:
		if !lcOK {
			return nil, missing("LinkCutter")
		}
		if kind == RealBridge {
			return Bridge(lc, p, tg), nil
		}
		return CutClients(lc, p, tg, target), nil
	}
	return nil, fmt.Errorf("unknown real-broker fault kind %q (want one of %v)", kind, RealKinds())
}
