package k8s

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
)

// selfNote is the caveat of a partition whose target side is every broker.
const selfNote = "the other side is every broker, the chosen ones included: Chaos Mesh cannot select the brokers it did not choose"

// partitionStep cuts the target's brokers (a minority when it names none)
// from every broker.
func partitionStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "minority")
	return Template{Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{PodSelector: sel, Action: NetPartition,
		Direction: DirBoth, Target: e.allBrokers()}}, append(notes, selfNote), nil
}

// isolateLeaderStep cuts one broker from the others; the harness's pods
// still reach it.
func isolateLeaderStep(_ generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(generators.Fault{}, "leader")
	return Template{Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{PodSelector: sel, Action: NetPartition,
		Direction: DirBoth, Target: e.allBrokers()}}, append(notes, selfNote), nil
}

// cutClientsStep cuts the harness's pods from the target's brokers.
func cutClientsStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "one")
	return Template{Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{PodSelector: sel, Action: NetPartition,
		Direction: DirBoth, Target: e.harnessPods()}}, notes, nil
}

// packetLossStep drops Params.Percent of the target's outgoing packets.
func packetLossStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "one")
	return Template{Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{PodSelector: sel, Action: NetLoss,
		Loss: &LossSpec{Loss: itoa(f.Params.Percent)}}}, append(notes, "netem drops the brokers' outgoing packets only"), nil
}

// slowLinkStep caps the target's outgoing bandwidth.
func slowLinkStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "one")
	return Template{Type: TypeNetworkChaos, NetworkChaos: &NetworkChaosSpec{PodSelector: sel, Action: NetBandwidth,
		Bandwidth: bandwidth(f.Params.BitsPerSecond)}}, append(notes, "tc caps the brokers' outgoing traffic only"), nil
}

// Chaos Mesh's documented bandwidth example: a 20 MiB queue, 10 kB bursts.
const (
	bandwidthLimit  = 20 << 20
	bandwidthBuffer = 10000
)

// bandwidth caps a link at bps bits per second.
func bandwidth(bps int64) *BandwidthSpec {
	return &BandwidthSpec{Rate: fmt.Sprintf("%dbit", bps), Limit: bandwidthLimit, Buffer: bandwidthBuffer}
}

// latencyStep delays (or, with the bandwidth toxic, caps) the packets the
// target's brokers send to the harness's pods, or with Params.Link
// replication to the other brokers: Toxiproxy's downstream direction.
func latencyStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "all")
	to := e.harnessPods()
	if f.Params.Link == generators.LinkReplication {
		to = e.allBrokers()
	}
	spec := &NetworkChaosSpec{PodSelector: sel, Direction: DirTo, Target: to}
	switch f.Params.Toxic {
	case "", "latency":
		latency, jitter := f.Params.Latency()
		spec.Action, spec.Delay = NetDelay, &DelaySpec{Latency: latency.String(), Jitter: jitter.String()}
	case "bandwidth":
		spec.Action, spec.Bandwidth = NetBandwidth, bandwidth(f.Params.BitsPerSecond)
	default:
		return Template{}, nil, fmt.Errorf("toxic %s acts on the connection (its bytes or its close), not on packets: netem has no equivalent", f.Params.Toxic)
	}
	return Template{Type: TypeNetworkChaos, NetworkChaos: spec}, append(notes, "one way, as Toxiproxy's downstream toxic: "+
		"the brokers' packets to the other side are held, not the packets they receive"), nil
}
