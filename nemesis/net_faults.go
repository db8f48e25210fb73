package nemesis

import (
	"context"
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Network faults on real brokers. Each cuts or degrades links at Start and
// heals at Stop; their nemesis ops say which topology was built and with
// what mechanism (the provider's: nftables drops, tbf bandwidth caps).

// partitionFault builds the components (or cut links) of a topology from
// the picked nodes.
func partitionFault(name string, p cluster.Partitioner, tg Targeting, target Target, mech map[string]any,
	cut func(ctx context.Context, nodes []int32) error) Fault {
	return &targetFault{name: name, startF: "partition", stopF: "heal", tg: tg, pick: tg.Pick(target),
		target: string(target), mechanism: mech, effects: [2]cluster.Effect{cluster.EffectCut, cluster.EffectHeal},
		apply: func(ctx context.Context, nodes []int32) (any, error) { return nil, cut(ctx, nodes) },
		heal:  func(ctx context.Context, _ any) error { return p.Heal(ctx) }}
}

// Isolate cuts the target's nodes from every other broker and from the
// clients.
func Isolate(p cluster.Partitioner, tg Targeting, target Target) Fault {
	return partitionFault("isolate", p, tg, target, map[string]any{"topology": "isolated from peers and clients"},
		func(ctx context.Context, nodes []int32) error {
			return p.Partition(ctx, [][]int32{nodes, append(tg.others(nodes), cluster.ClientNode)})
		})
}

// Halves splits the brokers into a random majority and minority that
// cannot talk to each other; clients still reach both sides (Jepsen's
// partition-random-halves).
func Halves(p cluster.Partitioner, tg Targeting) Fault {
	return partitionFault("halves", p, tg, TargetMinority, map[string]any{"topology": "minority | majority, clients reach both"},
		func(ctx context.Context, minority []int32) error {
			return p.Partition(ctx, [][]int32{minority, tg.others(minority)})
		})
}

// IsolateLeader cuts the watched partition's leader from every follower
// while the clients still reach it: the leader keeps accepting writes it
// cannot replicate, the followers elect a new leader, and acks=1 writes to
// the old one are lost when it rejoins.
func IsolateLeader(p cluster.Partitioner, tg Targeting) Fault {
	return partitionFault("isolate-leader", p, tg, TargetLeader, map[string]any{"topology": "leader | followers, clients reach both"},
		func(ctx context.Context, leader []int32) error {
			return p.Partition(ctx, [][]int32{leader, tg.others(leader)})
		})
}

// Bridge splits the brokers into two sides joined only through one bridge
// node that sees both (Jepsen's partition-majorities-ring for three nodes:
// each node sees a majority, no two agree on it).
func Bridge(lc cluster.LinkCutter, p cluster.Partitioner, tg Targeting) Fault {
	return partitionFault("bridge", p, tg, TargetOne, map[string]any{"topology": "bridge"},
		func(ctx context.Context, bridge []int32) error {
			rest := tg.others(bridge)
			if len(rest) < 2 {
				return fmt.Errorf("a bridge needs at least 3 brokers, have %d", len(rest)+len(bridge))
			}
			left, right := rest[:len(rest)/2], rest[len(rest)/2:]
			var links [][2]int32
			for _, a := range left {
				for _, b := range right {
					links = append(links, [2]int32{a, b})
				}
			}
			return lc.CutLinks(ctx, links)
		})
}

// CutClients cuts the clients from the target's nodes; the brokers still
// talk to each other.
func CutClients(lc cluster.LinkCutter, p cluster.Partitioner, tg Targeting, target Target) Fault {
	return partitionFault("cut-clients", p, tg, target, map[string]any{"topology": "clients cut from nodes"},
		func(ctx context.Context, nodes []int32) error {
			links := make([][2]int32, len(nodes))
			for i, n := range nodes {
				links[i] = [2]int32{cluster.ClientNode, n}
			}
			return lc.CutLinks(ctx, links)
		})
}

// PacketLoss drops percent of the packets the target's nodes receive, at
// random, from peers and clients alike.
func PacketLoss(pl cluster.PacketLoser, tg Targeting, target Target, percent int) Fault {
	if percent < 1 || percent > 100 {
		return badFault("packet-loss", fmt.Errorf("packet loss of %d%%, want 1..100", percent))
	}
	return &targetFault{name: "packet-loss", startF: "packet-loss", stopF: "packet-loss-heal", tg: tg,
		pick: tg.Pick(target), target: string(target), mechanism: map[string]any{"percent": percent, "mechanism": "random drop"},
		effects: [2]cluster.Effect{cluster.EffectPacketLoss, cluster.EffectPacketLoss},
		apply:   eachNode(func(ctx context.Context, n int32) error { return pl.PacketLoss(ctx, n, percent) }),
		heal:    allNodes(func(ctx context.Context, n int32) error { return pl.PacketLoss(ctx, n, 0) })}
}

// SlowLink caps the bandwidth of the target's links at bitsPerSecond. The
// mechanism is the provider's (tbf on the local cluster: a rate limit that
// queues, not a fixed added latency), and the op says which.
func SlowLink(ls cluster.LinkSlower, tg Targeting, target Target, bitsPerSecond int64) Fault {
	if bitsPerSecond <= 0 {
		return badFault("slow-link", fmt.Errorf("link rate %d bit/s, want > 0", bitsPerSecond))
	}
	return &targetFault{name: "slow-link", startF: "slow-link", stopF: "slow-link-heal", tg: tg,
		pick: tg.Pick(target), target: string(target),
		mechanism: map[string]any{"bits-per-second": bitsPerSecond, "mechanism": ls.SlowLinkMechanism()},
		effects:   [2]cluster.Effect{cluster.EffectSlowLink, cluster.EffectSlowLink},
		apply:     eachNode(func(ctx context.Context, n int32) error { return ls.SlowLink(ctx, n, bitsPerSecond) }),
		heal:      allNodes(func(ctx context.Context, n int32) error { return ls.SlowLink(ctx, n, 0) })}
}

// badFault fails at Start with err: a fault built with impossible
// parameters must not run as if it were something milder.
func badFault(name string, err error) Fault {
	return &instantFault{name: name, move: func(context.Context) (any, error) { return nil, err }}
}

// IsolateLeaderReplication cuts only the replication traffic between the
// watched partition's leader and every other broker (their broker listener,
// both ways). The leader still reaches the controller quorum and the
// clients still reach it, so it stays leader and, after
// replica.lag.time.max.ms, shrinks its ISR to itself: the state in which
// min.insync.replicas=1 acknowledges acks=all writes with one copy. (A full
// partition would fence it instead, as combined broker+controller nodes
// lose the quorum with their peers.) The op names the links and the ports
// cut and kept.
func IsolateLeaderReplication(rc cluster.ReplicationCutter, p cluster.Partitioner, tg Targeting) Fault {
	links := func(leader []int32) [][2]int32 {
		var out [][2]int32
		for _, f := range tg.others(leader) {
			out = append(out, [2]int32{leader[0], f})
		}
		return out
	}
	return &targetFault{name: "isolate-leader-replication", startF: "partition", stopF: "heal", tg: tg,
		pick: tg.Pick(TargetLeader), target: string(TargetLeader),
		mechanism: map[string]any{"topology": "leader's replication cut from followers; controller quorum and clients reach it",
			"mechanism": "tcp drops on the broker listener port between broker pairs"},
		effects: [2]cluster.Effect{cluster.EffectCut, cluster.EffectHeal},
		describe: func(leader []int32) map[string]any {
			cut, kept := rc.ReplicationPorts()
			return map[string]any{"links": links(leader), "ports-cut": cut, "ports-kept": kept}
		},
		apply: func(ctx context.Context, leader []int32) (any, error) {
			return nil, rc.CutReplication(ctx, links(leader))
		},
		heal: func(ctx context.Context, _ any) error { return p.Heal(ctx) }}
}
