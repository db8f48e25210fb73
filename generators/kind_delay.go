package generators

import (
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Holds requests (the embedded cluster's kfake) before the broker
//   handles them; drawn for what it does to sends, so a sender must run.
// * Takes nothing out: no footprint, no clash, nothing to heal.
// * Drawn with a probability of 10-100% and a delay of 10-300 ms;
//   --nemesis takes --fault-probability and 50 ms.

// KindDelay holds requests before the broker handles them.
const KindDelay = "delay"

func delayKind() Kind {
	return Kind{Name: KindDelay, Capability: cluster.CapRequestFaults, Drawn: true,
		Doc:  "Holds requests for Params.Delay before the broker handles them (Params.Probability of them; 0 is every one).",
		need: staticNeed(need{senders: true}),
		defaults: func(f *Fault, _ Duration, fl FaultFlags) {
			f.Params.Probability, f.Params.Delay = fl.Probability, Duration(50*time.Millisecond)
		},
		draw: func(d drawer, label func(string) string, s Scenario) FaultParams {
			p := drawProbability(d, label, s)
			p.Delay = Duration(time.Duration(d.intRange(label("delay-ms"), 10, 300)) * time.Millisecond)
			return p
		},
	}
}
