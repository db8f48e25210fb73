package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// DrawableKinds is the fault kinds a random draw on prov takes:
// generators.KindsFor(prov.Name()) without those prov would refuse before
// it starts (Injectable). KindsFor names what a provider runs where its
// machine has the tools; this is what it runs on this machine, so that a
// draw never asks for a movable clock without libfaketime, nor for lazy
// disks without root and /dev/fuse, and fails for it after the draw. The
// probe is also checked against prov's Kafka release (kafkaFits): below
// 4.0 no add-broker or remove-broker, below 3.9 no remove-voter (whose
// probe asks for the dynamic quorum it needs); and a started local
// cluster with a static quorum has no remove-voter.
func DrawableKinds(prov cluster.Provider) []string {
	var out []string
	for _, k := range generators.KindsFor(prov.Name()) {
		probe := generators.Scenario{Cluster: generators.Cluster{Provider: prov.Name()}, Nemesis: []generators.Fault{{Kind: k}}}
		if Injectable(prov, probe) == nil {
			out = append(out, k)
		}
	}
	return out
}
