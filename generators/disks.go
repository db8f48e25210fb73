package generators

import "slices"

// Disk fault modes (Params.Disk).
const (
	DiskEIO     = "eio"      // writes and syncs fail with EIO (the default)
	DiskENOSPC  = "enospc"   // writes and syncs fail with ENOSPC
	DiskReadEIO = "read-eio" // reads fail with EIO
)

func diskModes() []string { return []string{DiskEIO, DiskENOSPC, DiskReadEIO} }

// LazyDisks reports whether s's brokers keep their data on lazyfs: asked
// for (cluster.lazy-disks), or needed by a fault on a broker's disk
// (power-loss, disk-fault). Other runs write directly.
func (s Scenario) LazyDisks() bool {
	return s.Cluster.LazyDisks || slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Disk })
}

// DiskTarget is f's target with the disk kinds' defaults (Kind's
// defaultTarget): all for a power loss, one for a disk fault.
func (p FaultParams) DiskTarget(kind string) string {
	if p.Target != "" {
		return p.Target
	}
	if t := kindOf(kind).defaultTarget; t != "" {
		return t
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

// checkDiskTarget checks a disk kind's target (its default included)
// against those it takes; disk kinds pick their brokers by target alone.
func checkDiskTarget(f Fault, field string, allowed []string) error {
	if len(f.Params.Nodes) > 0 {
		return bad(field+".params.nodes", "%s picks its brokers by params.target", f.Kind)
	}
	if t := f.Params.DiskTarget(f.Kind); !slices.Contains(allowed, t) {
		return bad(field+".params.target", "%q: %s takes one of %v", t, f.Kind, allowed)
	}
	return nil
}

// diskFootprint is the footprint of a disk kind: the brokers it takes
// down, and their disks.
func diskFootprint(f Fault, s Scenario) Footprint {
	f.Params.Target = f.Params.DiskTarget(f.Kind)
	fp := downFootprint(f, s)
	fp.Disk = true
	return fp
}
