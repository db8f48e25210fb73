package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Caps Params.Target's links at Params.BitsPerSecond for the window.
// * Footprint: degraded links.
// * Scheduled by hand; a draw rule picks a target and 100 kbit/s to
//   10 Mbit/s; --nemesis caps at 1 Mbit/s.

// KindSlowLink caps Params.Target's links at Params.BitsPerSecond.
const KindSlowLink = "slow-link"

// slowLinkRates are what a slow-link draw caps links at, the mildest first.
func slowLinkRates() []int64 { return []int64{10_000_000, 1_000_000, 100_000} }

func slowLinkKind() Kind {
	return Kind{Name: KindSlowLink, Capability: cluster.CapPartition,
		Doc:  "Caps Params.Target's links at Params.BitsPerSecond for the window.",
		Owns: []string{"bits-per-second"},
		check: func(f Fault, field string, _ *Scenario) error {
			if f.Params.BitsPerSecond <= 0 {
				return bad(field+".params.bits-per-second", "%d, want > 0", f.Params.BitsPerSecond)
			}
			return nil
		},
		footprint: func(Fault, Scenario) Footprint { return Footprint{Cuts: true} },
		defaults:  func(f *Fault, _ Duration, _ FaultFlags) { f.Params.BitsPerSecond = 1_000_000 },
		draw: func(d drawer, label func(string) string, _ Scenario) FaultParams {
			rates := slowLinkRates()
			return FaultParams{Target: d.pick(label("target"), []string{"one", "leader", "all"}),
				BitsPerSecond: rates[d.intRange(label("rate"), 0, len(rates)-1)]}
		},
	}
}
