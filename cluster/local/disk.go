package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

var _ cluster.DiskFaulter = (*Provider)(nil) // lazyfs under each node's data directory

// disks are a run's lazyfs mounts, one per node, and where each node's
// log stood when its disk fault began (realbroker.Disks).
type disks struct{ realbroker.Disks }

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
	for _, n := range p.nodes {
		back := filepath.Join(n.dir, "data-backing")
		if err := os.MkdirAll(back, 0o755); err != nil {
			return err
		}
		if err := p.disks.Mount(n.id, back, filepath.Join(n.dir, "data"), p.id); err != nil {
			return fmt.Errorf("cluster/local: %w", err)
		}
	}
	p.opts.Logf("cluster/local: run %s: data directories on lazyfs (unsynced writes kept apart)", p.id)
	return nil
}

// unmountDisks takes every mount down; the nodes are dead by then.
func (p *Provider) unmountDisks() error { return p.disks.Unmount() }

// PowerLoss kills every node first, then discards their unsynced writes:
// a correlated loss leaves no survivor to copy from.
func (p *Provider) PowerLoss(ctx context.Context, ids []int32) ([]cluster.DiskLoss, error) {
	losses, err := p.disks.PowerLoss(ids, func(id int32) error {
		n, err := p.node(id)
		if err != nil {
			return err
		}
		return n.kill(ctx)
	})
	return cluster.DiskLosses(losses), p.DiskError(err)
}

// FailDisk starts node's disk fault and marks where its log stands, for
// DiskReaction.
func (p *Provider) FailDisk(_ context.Context, id int32, mode string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	size := int64(0)
	if st, err := os.Stat(n.logPath()); err == nil {
		size = st.Size()
	}
	return p.DiskError(p.disks.Fail(id, mode, size))
}

// DiskFailures counts the operations node's fault failed.
func (p *Provider) DiskFailures(id int32) int64 { return p.disks.Failures(id) }

// DiskReaction is the first line of node's log since FailDisk showing it
// met the fault.
func (p *Provider) DiskReaction(id int32) string {
	n, err := p.node(id)
	if err != nil {
		return ""
	}
	f, err := os.Open(n.logPath())
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(p.disks.LogFrom(id), io.SeekStart); err != nil {
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
	if err := p.disks.Heal(id); err != nil {
		return false, p.DiskError(err)
	}
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
