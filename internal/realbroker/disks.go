package realbroker

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
)

// Disk fault modes, as cluster spells them (cluster.DiskEIO and the rest).
const (
	DiskEIO     = "eio"
	DiskENOSPC  = "enospc"
	DiskReadEIO = "read-eio"
)

// Disks are a run's lazyfs mounts, one per node under its data directory,
// and where each node's log stood when its disk fault began. The zero
// value has none. The providers share this bookkeeping; how a node dies
// and where its log is are theirs.
type Disks struct {
	mu      sync.Mutex
	by      map[int32]*lazyfs.FS
	logFrom map[int32]int64
}

// Mount puts node id's data on a lazyfs of back (which must exist) at
// mnt, tagged with the run id tag.
func (d *Disks) Mount(id int32, back, mnt, tag string) error {
	m, err := lazyfs.Mount(lazyfs.Options{Backing: back, Mountpoint: mnt, Tag: tag})
	if err != nil {
		return fmt.Errorf("node %d: %w", id, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by, d.logFrom = map[int32]*lazyfs.FS{}, map[int32]int64{}
	}
	d.by[id] = m
	return nil
}

// Unmount takes every mount down; the nodes must be dead by then.
func (d *Disks) Unmount() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, m := range d.by {
		errs = append(errs, m.Unmount())
	}
	d.by = nil
	return errors.Join(errs...)
}

// Writeback makes what every mount holds durable (lazyfs.FS.Writeback):
// the providers call it once the nodes' storage is formatted, before the
// brokers start, so that a power loss judges what a broker syncs, not
// what the format step left to the kernel.
func (d *Disks) Writeback() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.by {
		m.Writeback()
	}
}

// Disk is node id's mount, or an error saying the run has none.
func (d *Disks) Disk(id int32) (*lazyfs.FS, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.by[id]
	if m == nil {
		return nil, fmt.Errorf("node %d has no lazyfs disk (the run's spec did not ask for LazyDisks)", id)
	}
	return m, nil
}

// NodeLoss is what a power loss discarded on node's disk (lazyfs.Loss),
// field for field cluster.DiskLoss, which cluster.DiskLosses converts it
// to (without tags: the tags are cluster's).
type NodeLoss struct {
	Node    int32
	Files   int
	Dropped int
	Bytes   int64
}

// PowerLoss kills every node of ids first (kill returns once the node is
// dead), then discards their unsynced writes: a correlated loss leaves no
// survivor to copy from.
func (d *Disks) PowerLoss(ids []int32, kill func(int32) error) ([]NodeLoss, error) {
	var mounts []*lazyfs.FS
	for _, id := range ids {
		m, err := d.Disk(id)
		if err != nil {
			return nil, err
		}
		if err := kill(id); err != nil {
			return nil, err
		}
		mounts = append(mounts, m)
	}
	var losses []NodeLoss
	for i, m := range mounts {
		l, err := m.PowerLoss()
		if err != nil {
			return losses, fmt.Errorf("node %d: %w", ids[i], err)
		}
		losses = append(losses, NodeLoss{ids[i], l.Files, l.Dropped, l.Bytes})
	}
	return losses, nil
}

// Fail starts node id's disk fault of mode and notes logAt, where its log
// stands, for LogFrom.
func (d *Disks) Fail(id int32, mode string, logAt int64) error {
	m, err := d.Disk(id)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.logFrom[id] = logAt
	d.mu.Unlock()
	switch mode {
	case DiskEIO:
		return m.FailWrites(syscall.EIO)
	case DiskENOSPC:
		return m.FailWrites(syscall.ENOSPC)
	case DiskReadEIO:
		m.FailReads()
		return nil
	}
	return fmt.Errorf("disk fault mode %q: want %s, %s or %s", mode, DiskEIO, DiskENOSPC, DiskReadEIO)
}

// LogFrom is where node id's log stood when its last fault began.
func (d *Disks) LogFrom(id int32) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logFrom[id]
}

// Failures counts the operations node id's fault failed.
func (d *Disks) Failures(id int32) int64 {
	m, err := d.Disk(id)
	if err != nil {
		return 0
	}
	return m.Failed()
}

// Heal clears node id's fault; starting again a broker that met it is
// the provider's.
func (d *Disks) Heal(id int32) error {
	m, err := d.Disk(id)
	if err != nil {
		return err
	}
	m.Heal()
	return nil
}

// DiskError is an error of Disks with the provider's name in front (as
// Cluster's own errors have it); nil stays nil.
func (c *Cluster) DiskError(err error) error { return c.wrap(err) }
