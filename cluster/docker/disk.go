package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Disk faults through the local provider's lazyfs: each node's data
// directory is a lazyfs mount on the host (served by this process, tagged
// with the run id) bind-mounted over the container's dataDir, so the
// container needs nothing special. A power loss kills the containers
// (docker kill) and then discards their unsynced writes: the kill ends the
// container's mount namespace, its bind mount with it, so lazyfs can
// unmount, restore and mount again; the restart binds the new mount.

// disks are a run's lazyfs mounts, one per node, and how long each node's
// container log was when its disk fault began.
type disks struct {
	mu      sync.Mutex
	by      map[int32]*lazyfs.FS
	logFrom map[int32]int
}

// diskCaps is CapDisk where lazyfs can mount (root, /dev/fuse) and the
// engine runs on this host, which it must to bind this host's mounts.
func diskCaps() []cluster.Capability {
	if lazyfs.Available() != nil || !engineLocal() {
		return nil
	}
	return []cluster.Capability{cluster.CapDisk}
}

// engineLocal says whether the engine this process would use listens on
// a unix socket, hence runs on this host.
func engineLocal() bool {
	host := os.Getenv("DOCKER_HOST")
	return host == "" || strings.HasPrefix(host, "unix://")
}

// mountDisk puts node n's data on a lazyfs of its host directory's
// data-backing, and returns the bind mount that makes it the container's
// dataDir. The backing directory is world-writable: apache/kafka's image
// runs its broker as a user of its own.
func (p *Provider) mountDisk(n int32) (bind string, err error) {
	dir := nodeHostDir(p.id, n)
	back, mnt := filepath.Join(dir, "data-backing"), filepath.Join(dir, "data")
	if err := os.MkdirAll(back, 0o777); err != nil {
		return "", fmt.Errorf("cluster/docker: %w", err)
	}
	if err := os.Chmod(back, 0o777); err != nil {
		return "", fmt.Errorf("cluster/docker: %w", err)
	}
	m, err := lazyfs.Mount(lazyfs.Options{Backing: back, Mountpoint: mnt, Tag: p.id})
	if err != nil {
		return "", fmt.Errorf("cluster/docker: node %d: %w", n, err)
	}
	p.disks.mu.Lock()
	defer p.disks.mu.Unlock()
	if p.disks.by == nil {
		p.disks.by, p.disks.logFrom = map[int32]*lazyfs.FS{}, map[int32]int{}
	}
	p.disks.by[n] = m
	return mnt + ":" + dataDir, nil
}

// unmountDisks takes every mount down; the containers are gone by then.
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
		return nil, fmt.Errorf("cluster/docker: node %d has no lazyfs disk (the run's spec did not ask for LazyDisks)", id)
	}
	return m, nil
}

// PowerLoss kills every node's container first, then discards their
// unsynced writes: a correlated loss leaves no survivor to copy from.
func (p *Provider) PowerLoss(ctx context.Context, ids []int32) ([]cluster.DiskLoss, error) {
	var mounts []*lazyfs.FS
	for _, id := range ids {
		m, err := p.disk(id)
		if err != nil {
			return nil, err
		}
		if err := p.Kill(ctx, id); err != nil {
			return nil, err
		}
		mounts = append(mounts, m)
	}
	var losses []cluster.DiskLoss
	for i, m := range mounts {
		l, err := m.PowerLoss()
		if err != nil {
			return losses, fmt.Errorf("cluster/docker: node %d: %w", ids[i], err)
		}
		losses = append(losses, cluster.DiskLoss{Node: ids[i], Files: l.Files, Dropped: l.Dropped, Bytes: l.Bytes})
	}
	return losses, nil
}

// FailDisk starts node's disk fault and marks where its container log
// stands, for DiskReaction.
func (p *Provider) FailDisk(ctx context.Context, id int32, mode string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	m, err := p.disk(id)
	if err != nil {
		return err
	}
	log, _ := p.logs(ctx, n)
	p.disks.mu.Lock()
	p.disks.logFrom[id] = len(log)
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
	return fmt.Errorf("cluster/docker: disk fault mode %q: want %s, %s or %s", mode, cluster.DiskEIO, cluster.DiskENOSPC, cluster.DiskReadEIO)
}

// DiskFailures counts the operations node's fault failed.
func (p *Provider) DiskFailures(id int32) int64 {
	m, err := p.disk(id)
	if err != nil {
		return 0
	}
	return m.Failed()
}

// logReadTimeout bounds DiskReaction's read of a container's log.
const logReadTimeout = 10 * time.Second

// DiskReaction is the first line of node's container log since FailDisk
// showing it met the fault.
func (p *Provider) DiskReaction(id int32) string {
	n, err := p.node(id)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), logReadTimeout)
	defer cancel()
	log, err := p.logs(ctx, n)
	if err != nil {
		return ""
	}
	p.disks.mu.Lock()
	from := min(p.disks.logFrom[id], len(log))
	p.disks.mu.Unlock()
	return realbroker.DiskReaction(strings.NewReader(log[from:]))
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
	running, _, _, err := p.state(ctx, n)
	if err != nil {
		return false, err
	}
	if running && p.DiskReaction(id) == "" {
		return false, nil
	}
	if err := p.Kill(ctx, id); err != nil {
		return false, err
	}
	return true, p.Restart(ctx, id)
}
