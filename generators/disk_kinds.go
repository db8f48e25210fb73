package generators

import "slices"

// Disk fault kinds (real brokers whose data directories are on lazyfs:
// the local provider as root). A scenario with one runs its brokers on
// such filesystems (Scenario.LazyDisks); other runs write directly.
const (
	// KindPowerLoss SIGKILLs Params.Target's brokers (one, leader,
	// replicas: every replica of key 0's partition, or all; default all)
	// and discards every write their disks had not synced, as a power
	// loss takes the page cache; they start again at the window's end.
	KindPowerLoss = "power-loss"
	// KindDiskFault fails one broker's disk (Params.Target one or leader)
	// for the window as Params.Disk says; its heal clears the fault and
	// starts the broker again if it shut down.
	KindDiskFault = "disk-fault"
)

// Disk fault modes (Params.Disk).
const (
	DiskEIO     = "eio"      // writes and syncs fail with EIO (the default)
	DiskENOSPC  = "enospc"   // writes and syncs fail with ENOSPC
	DiskReadEIO = "read-eio" // reads fail with EIO
)

// TargetReplicas names every replica of key 0's partition (power-loss).
const TargetReplicas = "replicas"

var diskModes = []string{DiskEIO, DiskENOSPC, DiskReadEIO}

func isDiskKind(kind string) bool { return kind == KindPowerLoss || kind == KindDiskFault }

// LazyDisks reports whether s has a disk fault: the run's brokers then
// keep their data on lazyfs.
func (s Scenario) LazyDisks() bool {
	return slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return isDiskKind(f.Kind) })
}

// DiskTarget is f's target with the disk kinds' defaults: all for a power
// loss, one for a disk fault.
func (p FaultParams) DiskTarget(kind string) string {
	switch {
	case p.Target != "":
		return p.Target
	case kind == KindPowerLoss:
		return "all"
	}
	return "one"
}

// DiskMode is f's disk fault mode, DiskEIO when it names none.
func (p FaultParams) DiskMode() string {
	if p.Disk == "" {
		return DiskEIO
	}
	return p.Disk
}

// validateDisk checks the parameters the disk kinds read, and that other
// kinds leave them alone.
func (f Fault) validateDisk(field string) error {
	p := f.Params
	switch {
	case p.Disk != "" && f.Kind != KindDiskFault:
		return bad(field+".params.disk", "read by disk-fault only (kind %s)", f.Kind)
	case p.Target == TargetReplicas && f.Kind != KindPowerLoss:
		return bad(field+".params.target", "%s is a power-loss target (kind %s)", TargetReplicas, f.Kind)
	case !isDiskKind(f.Kind):
		return nil
	case len(p.Nodes) > 0:
		return bad(field+".params.nodes", "%s picks its brokers by params.target", f.Kind)
	case p.Disk != "" && !slices.Contains(diskModes, p.Disk):
		return bad(field+".params.disk", "%q is not one of %v", p.Disk, diskModes)
	}
	allowed := []string{"one", "leader", TargetReplicas, "all"}
	if f.Kind == KindDiskFault {
		allowed = []string{"one", "leader"}
	}
	if t := p.DiskTarget(f.Kind); !slices.Contains(allowed, t) {
		return bad(field+".params.target", "%q: %s takes one of %v", t, f.Kind, allowed)
	}
	return nil
}
