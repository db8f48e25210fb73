package cluster

import "context"

// CapDisk: DiskFaulter (power loss of unsynced writes, failing disks).
// A provider has it when it can put its brokers' data on lazyfs (the
// local provider as root); it acts in runs whose Spec asks for LazyDisks.
const CapDisk Capability = "disk"

// DiskLoss is what a power loss discarded on one broker's disk.
type DiskLoss struct {
	Node    int32 `json:"node"`
	Files   int   `json:"files"`   // files cut back to their synced state
	Dropped int   `json:"dropped"` // files created and never synced, removed
	Bytes   int64 `json:"bytes"`   // unsynced bytes discarded (lazyfs.Loss.Bytes: preallocated index space included)
}

// DiskLosses converts a provider's own record of a power loss, a type with
// DiskLoss's fields and no tags (internal/realbroker's NodeLoss: it sits
// below this package and cannot name DiskLoss), to DiskLosses; a record
// whose fields ever differ fails to compile at its provider's call.
func DiskLosses[L ~struct {
	Node    int32
	Files   int
	Dropped int
	Bytes   int64
}](ls []L) []DiskLoss {
	out := make([]DiskLoss, len(ls))
	for i, l := range ls {
		out[i] = DiskLoss(l)
	}
	return out
}

// Disk fault modes (DiskFaulter.FailDisk), as generators spells them.
const (
	DiskEIO     = "eio"      // writes and syncs fail with EIO
	DiskENOSPC  = "enospc"   // writes and syncs fail with ENOSPC
	DiskReadEIO = "read-eio" // reads fail with EIO
)

// DiskFaulter breaks the disks under brokers' data directories.
type DiskFaulter interface {
	// PowerLoss SIGKILLs nodes, then discards every write their disks had
	// not synced (fsync), as a power loss takes the page cache. The nodes
	// stay down until NodeKiller.Restart.
	PowerLoss(ctx context.Context, nodes []int32) ([]DiskLoss, error)
	// FailDisk makes node's disk fail as mode says until HealDisk.
	FailDisk(ctx context.Context, node int32, mode string) error
	// DiskFailures is how many of node's disk operations its fault has
	// failed so far: proof that the broker met the fault.
	DiskFailures(node int32) int64
	// DiskReaction is the first line of node's log since FailDisk that
	// shows the broker reacting (a log directory offline, a shutdown),
	// or "".
	DiskReaction(node int32) string
	// HealDisk ends node's disk fault and, when the broker shut down or
	// took its log directory offline, starts it again; restarted says so.
	HealDisk(ctx context.Context, node int32) (restarted bool, err error)
}
