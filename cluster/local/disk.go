package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

var _ cluster.DiskFaulter = (*Provider)(nil) // lazyfs under each node's data directory

// disks are a run's lazyfs mounts, one per node, and where each node's
// log stood when its disk fault began.
type disks struct {
	mu      sync.Mutex
	by      map[int32]*lazyfs.FS
	logFrom map[int32]int64
}

// diskCaps is CapDisk where lazyfs can mount (root, /dev/fuse).
func diskCaps() []cluster.Capability {
	if lazyfs.Available() != nil {
		return nil
	}
	return []cluster.Capability{cluster.CapDisk}
}

// mountDisks puts each node's data directory (n<id>/data) on a lazyfs of
// n<id>/data-backing, when the spec asks; the mount's tag is the run id,
// so CleanLeftovers finds it after a crash.
func (p *Provider) mountDisks(spec cluster.Spec) error {
	if !spec.LazyDisks {
		return nil
	}
	if err := lazyfs.Available(); err != nil {
		return fmt.Errorf("cluster/local: the run's disk faults need lazyfs: %w", err)
	}
	p.disks.mu.Lock()
	defer p.disks.mu.Unlock()
	p.disks.by, p.disks.logFrom = map[int32]*lazyfs.FS{}, map[int32]int64{}
	for _, n := range p.nodes {
		back := filepath.Join(n.dir, "data-backing")
		if err := os.MkdirAll(back, 0o755); err != nil {
			return err
		}
		m, err := lazyfs.Mount(lazyfs.Options{Backing: back, Mountpoint: filepath.Join(n.dir, "data"), Tag: p.id})
		if err != nil {
			return fmt.Errorf("cluster/local: node %d: %w", n.id, err)
		}
		p.disks.by[n.id] = m
	}
	p.opts.Logf("cluster/local: run %s: data directories on lazyfs (unsynced writes kept apart)", p.id)
	return nil
}

// unmountDisks takes every mount down; the nodes are dead by then.
func (p *Provider) unmountDisks() error {
	p.disks.mu.Lock()
	defer p.disks.mu.Unlock()
	var errs []error
	for _, m := range p.disks.by {
		errs = append(errs, m.Unmount())
	}
	p.disks.by = nil
	return errors.Join(errs...)
}

func (p *Provider) disk(id int32) (*lazyfs.FS, error) {
	p.disks.mu.Lock()
	defer p.disks.mu.Unlock()
	m := p.disks.by[id]
	if m == nil {
		return nil, fmt.Errorf("cluster/local: node %d has no lazyfs disk (the run's spec did not ask for LazyDisks)", id)
	}
	return m, nil
}

// PowerLoss kills every node first, then discards their unsynced writes:
// a correlated loss leaves no survivor to copy from.
func (p *Provider) PowerLoss(ctx context.Context, ids []int32) ([]cluster.DiskLoss, error) {
	var mounts []*lazyfs.FS
	for _, id := range ids {
		n, err := p.node(id)
		if err != nil {
			return nil, err
		}
		m, err := p.disk(id)
		if err != nil {
			return nil, err
		}
		if err := n.kill(ctx); err != nil {
			return nil, err
		}
		mounts = append(mounts, m)
	}
	var losses []cluster.DiskLoss
	for i, m := range mounts {
		l, err := m.PowerLoss()
		if err != nil {
			return losses, fmt.Errorf("cluster/local: node %d: %w", ids[i], err)
		}
		losses = append(losses, cluster.DiskLoss{Node: ids[i], Files: l.Files, Dropped: l.Dropped, Bytes: l.Bytes})
	}
	return losses, nil
}

// FailDisk starts node's disk fault and marks where its log stands, for
// DiskReaction.
func (p *Provider) FailDisk(_ context.Context, id int32, mode string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	m, err := p.disk(id)
	if err != nil {
		return err
	}
	size := int64(0)
	if st, err := os.Stat(n.logPath()); err == nil {
		size = st.Size()
	}
	p.disks.mu.Lock()
	p.disks.logFrom[id] = size
	p.disks.mu.Unlock()
	switch mode {
	case cluster.DiskEIO:
		return m.FailWrites(syscall.EIO)
	case cluster.DiskENOSPC:
		return m.FailWrites(syscall.ENOSPC)
	case cluster.DiskReadEIO:
		m.FailReads()
		return nil
	}
	return fmt.Errorf("cluster/local: disk fault mode %q: want %s, %s or %s", mode, cluster.DiskEIO, cluster.DiskENOSPC, cluster.DiskReadEIO)
}

// DiskFailures counts the operations node's fault failed.
func (p *Provider) DiskFailures(id int32) int64 {
	m, err := p.disk(id)
	if err != nil {
		return 0
	}
	return m.Failed()
}

// DiskReaction is the first line of node's log since FailDisk showing it
// met the fault.
func (p *Provider) DiskReaction(id int32) string {
	n, err := p.node(id)
	if err != nil {
		return ""
	}
	p.disks.mu.Lock()
	from := p.disks.logFrom[id]
	p.disks.mu.Unlock()
	f, err := os.Open(n.logPath())
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	return realbroker.DiskReaction(f)
}

// HealDisk clears node's fault; a broker that shut down, or that took its
// log directory offline and runs on without it, starts again on the
// healed disk.
func (p *Provider) HealDisk(ctx context.Context, id int32) (bool, error) {
	n, err := p.node(id)
	if err != nil {
		return false, err
	}
	m, err := p.disk(id)
	if err != nil {
		return false, err
	}
	m.Heal()
	n.mu.Lock()
	running := n.running()
	n.mu.Unlock()
	if running && p.DiskReaction(id) == "" {
		return false, nil
	}
	if err := n.kill(ctx); err != nil {
		return false, err
	}
	return true, p.Restart(ctx, id)
}

// scanMounts finds lazyfs mounts tagged with a run id: a crashed run's
// are served by nobody and are detached.
func scanMounts(_ context.Context, add func(string, resource)) error {
	ms, err := lazyfs.Mounts()
	for _, m := range ms {
		if len(m.Tag) != idLen {
			continue
		}
		add(m.Tag, resource{"mount", m.Path, func(context.Context) error {
			return errors.Join(lazyfs.Abort(m), lazyfs.ForceUnmount(m.Path))
		}})
	}
	return err
}
