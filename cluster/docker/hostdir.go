package docker

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
)

// The faults below the network (clock.go, disk.go) need host directories
// bind-mounted into the containers: a clock control file the harness
// rewrites, a lazyfs mount the harness serves. A run's live under
// hostRoot()/<run id>, with an owner file like the containers' label, so
// that the leftovers of a crashed run are found and removed with its
// containers.

// hostRoot holds the host directories of every run.
func hostRoot() string { return filepath.Join(os.TempDir(), "kafkachaos-docker") }

// hostDir is run id's host directory.
func hostDir(id string) string { return filepath.Join(hostRoot(), id) }

// nodeHostDir is node n's part of run id's host directory.
func nodeHostDir(id string, n int32) string { return filepath.Join(hostDir(id), fmt.Sprintf("n%d", n)) }

// ownerFile names the process that owns the run, as labelOwner does.
const ownerFile = "owner"

// makeHostDir creates run id's host directory with its owner file, under
// a hidden name first: another process's cleanup must never see it
// without its owner.
func makeHostDir(id string) error {
	tmp := filepath.Join(hostRoot(), "."+id)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ownerFile), []byte(ownerTag()), 0o644); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	if err := os.Rename(tmp, hostDir(id)); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	return nil
}

// hostDirOwners maps the run id of every host directory to its owner.
func hostDirOwners() map[string]string {
	entries, _ := os.ReadDir(hostRoot())
	owners := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // being made
		}
		b, _ := os.ReadFile(filepath.Join(hostRoot(), e.Name(), ownerFile))
		owners[e.Name()] = strings.TrimSpace(string(b))
	}
	return owners
}

// hostMounts are the lazyfs mounts tagged with run id.
func hostMounts(id string) ([]lazyfs.Mounted, error) {
	ms, err := lazyfs.Mounts()
	var out []lazyfs.Mounted
	for _, m := range ms {
		if m.Tag == id {
			out = append(out, m)
		}
	}
	return out, err
}

// removeHostDir detaches what is still mounted of run id's (a crashed
// run's mounts, served by nobody) and deletes its host directory; the
// containers are gone by then. A mount that will not go keeps the
// directory: deleting through it would delete what it serves.
func removeHostDir(id string) ([]string, error) {
	ms, err := hostMounts(id)
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: listing run %s's mounts: %w", id, err)
	}
	var removed []string
	for _, m := range ms {
		if err := errors.Join(lazyfs.Abort(m), lazyfs.ForceUnmount(m.Path)); err != nil {
			return removed, fmt.Errorf("cluster/docker: keeping %s: cannot unmount %s: %w", hostDir(id), m.Path, err)
		}
		removed = append(removed, "mount "+m.Path)
	}
	if _, err := os.Stat(hostDir(id)); errors.Is(err, os.ErrNotExist) {
		return removed, nil
	}
	if err := os.RemoveAll(hostDir(id)); err != nil {
		return removed, fmt.Errorf("cluster/docker: %w", err)
	}
	return append(removed, "dir "+hostDir(id)), nil
}

// hostLeftovers lists run id's mounts and host directory, if any.
func hostLeftovers(id string) ([]string, error) {
	ms, err := hostMounts(id)
	var out []string
	for _, m := range ms {
		out = append(out, "mount "+m.Path)
	}
	if _, serr := os.Stat(hostDir(id)); serr == nil {
		out = append(out, "dir "+hostDir(id))
	}
	return out, err
}

// faultsPossible refuses a spec whose faults below the network this
// machine cannot give, before anything starts.
func faultsPossible(spec cluster.Spec) error {
	if !spec.LazyDisks {
		return nil
	}
	if err := lazyfs.Available(); err != nil {
		return fmt.Errorf("cluster/docker: the run's disk faults need lazyfs on the host: %w", err)
	}
	if !engineLocal() {
		return fmt.Errorf("cluster/docker: the run's disk faults bind-mount lazyfs mounts of this host, and the engine (DOCKER_HOST=%s) is not on it", os.Getenv("DOCKER_HOST"))
	}
	return nil
}

// prepareNode readies node n's clock and disk when the spec asks for them,
// adding what its container needs to env and n.binds.
func (p *Provider) prepareNode(spec cluster.Spec, n *node, env map[string]string) error {
	if spec.Clocks {
		ce, bind, err := p.startClock(n.id)
		if err != nil {
			return err
		}
		maps.Copy(env, ce)
		n.binds = append(n.binds, bind)
		p.clocks = true
	}
	if spec.LazyDisks {
		bind, err := p.mountDisk(n.id)
		if err != nil {
			return err
		}
		n.binds = append(n.binds, bind)
	}
	return nil
}
