package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Acts on produce requests (the embedded cluster's kfake answers them):
//   a producer, copier or txn queue must send some.
// * Takes nothing out: no footprint, no clash, nothing to heal.
// * Drawn with a probability of 10-100%; --nemesis takes
//   --fault-probability.

// KindLostAck applies produce requests and answers them with an error:
// the classic lost acknowledgement that makes a retrying producer write
// twice.
const KindLostAck = "lost-ack"

func lostAckKind() Kind {
	return Kind{Name: KindLostAck, Capability: cluster.CapRequestFaults, Drawn: true,
		Doc: "Applies produce requests and answers them with an error (Params.Probability of them; 0 is every one): " +
			"the classic lost acknowledgement that makes a retrying producer write twice.",
		need:     staticNeed(need{senders: true}),
		defaults: probabilityFlag,
		draw:     drawProbability,
	}
}

// probabilityFlag is the request faults' --nemesis default: the
// --fault-probability flag.
func probabilityFlag(f *Fault, _ Duration, fl FaultFlags) { f.Params.Probability = fl.Probability }

// drawProbability draws a request fault hitting 10-100% of its requests.
func drawProbability(d drawer, label func(string) string, _ Scenario) FaultParams {
	return FaultParams{Probability: float64(d.intRange(label("percent"), 10, 100)) / 100}
}
