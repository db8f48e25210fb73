package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Drops Params.Percent (1-100) of Params.Target's packets for the window;
//   acts on every packet of a node, so it holds where brokers replicate
//   through the harness's proxies.
// * Footprint: degraded links.
// * Scheduled by hand; a draw rule picks a target and 10-100%; --nemesis
//   drops 20%.

// KindPacketLoss drops Params.Percent of Params.Target's packets.
const KindPacketLoss = "packet-loss"

func packetLossKind() Kind {
	return Kind{Name: KindPacketLoss, Capability: cluster.CapPartition,
		Doc:  "Drops Params.Percent (1-100) of Params.Target's packets for the window.",
		Owns: []string{"percent"},
		check: func(f Fault, field string, _ *Scenario) error {
			if p := f.Params.Percent; p < 1 || p > 100 {
				return bad(field+".params.percent", "%d, want 1..100", p)
			}
			return nil
		},
		footprint: func(Fault, Scenario) Footprint { return Footprint{Cuts: true} },
		defaults:  func(f *Fault, _ Duration, _ FaultFlags) { f.Params.Percent = 20 },
		draw: func(d drawer, label func(string) string, _ Scenario) FaultParams {
			return FaultParams{Target: d.pick(label("target"), []string{"one", "leader", "all"}),
				Percent: d.intRange(label("percent"), 10, 100)}
		},
	}
}
