package generators

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Fails one broker's disk (Params.Target one or leader) for the window
//   as Params.Disk says (eio, enospc, read-eio); the broker may shut
//   itself down, so a majority must be up when it starts. Its heal clears
//   the fault and starts the broker again if it shut down.
// * Footprint: a broker down and its disk: no other disk fault may overlap
//   it (a power loss of the same broker, or of all, restarts it onto the
//   failing disk), and a draw keeps cuts apart from it (a cut broker reads
//   and writes nothing, and the fault is never seen).
// * Drawn with a target and a mode.

// KindDiskFault fails one broker's disk (Params.Target one or leader) for
// the window as Params.Disk says; its heal clears the fault and starts the
// broker again if it shut down.
const KindDiskFault = "disk-fault"

func diskFaultTargets() []string { return []string{"one", "leader"} }

func diskFaultKind() Kind {
	return Kind{Name: KindDiskFault, Capability: cluster.CapDisk, Drawn: true, targets: diskFaultTargets(),
		Doc: "Fails one broker's disk (Params.Target one or leader) for the window as Params.Disk says: eio (writes and " +
			"syncs fail with EIO, the default), enospc (with ENOSPC) or read-eio (reads fail); its heal clears the fault " +
			"and starts the broker again if it shut down.",
		Owns: []string{"disk"},
		need: staticNeed(need{takesDown: true}),
		check: func(f Fault, field string, _ *Scenario) error {
			if d := f.Params.Disk; d != "" && !slices.Contains(diskModes(), d) {
				return bad(field+".params.disk", "%q is not one of %v", d, diskModes())
			}
			return checkDiskTarget(f, field, diskFaultTargets())
		},
		footprint: diskFootprint,
		draw: func(d drawer, label func(string) string, _ Scenario) FaultParams {
			return FaultParams{Target: d.pick(label("target"), diskFaultTargets()), Disk: d.pick(label("disk"), diskModes())}
		},
	}
}
