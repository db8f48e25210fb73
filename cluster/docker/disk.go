package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// disks are a run's lazyfs mounts, one per node, and how long each
// node's container log was when its disk fault began (realbroker.Disks).
type disks struct{ realbroker.Disks }

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
	if err := p.disks.Mount(n, back, mnt, p.id); err != nil {
		return "", fmt.Errorf("cluster/docker: %w", err)
	}
	return mnt + ":" + dataDir, nil
}

// unmountDisks takes every mount down; the containers are gone by then.
func (p *Provider) unmountDisks() error { return p.disks.Unmount() }

// PowerLoss kills every node's container first, then discards their
// unsynced writes: a correlated loss leaves no survivor to copy from.
func (p *Provider) PowerLoss(ctx context.Context, ids []int32) ([]cluster.DiskLoss, error) {
	losses, err := p.disks.PowerLoss(ids, func(id int32) error { return p.Kill(ctx, id) })
	return cluster.DiskLosses(losses), p.DiskError(err)
}

// FailDisk starts node's disk fault and marks where its container log
// stands, for DiskReaction.
func (p *Provider) FailDisk(ctx context.Context, id int32, mode string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	log, _ := p.logs(ctx, n)
	return p.DiskError(p.disks.Fail(id, mode, int64(len(log))))
}

// DiskFailures counts the operations node's fault failed.
func (p *Provider) DiskFailures(id int32) int64 { return p.disks.Failures(id) }

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
	from := min(int(p.disks.LogFrom(id)), len(log))
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
	if err := p.disks.Heal(id); err != nil {
		return false, p.DiskError(err)
	}
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
