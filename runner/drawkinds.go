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
// disks without root and /dev/fuse, and fails for it after the draw.
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
