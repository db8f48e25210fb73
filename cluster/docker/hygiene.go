package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/flock"
	"github.com/moby/moby/client"
)

// Labels on every container and network a run creates.
const (
	labelRun   = "org.kafkachaos.run"   // the short run id
	labelOwner = "org.kafkachaos.owner" // "<pid>:<start time>" of the process that owns the run
	labelSpec  = "org.kafkachaos.spec-run"
)

// ruleTagPrefix starts the comment of a run's host FORWARD rule.
const ruleTagPrefix = "kafkachaos-docker-"

// ownerTag identifies this process across PID reuse: its pid and its start
// time in clock ticks since boot.
func ownerTag() string {
	return fmt.Sprintf("%d:%s", os.Getpid(), startTime(os.Getpid()))
}

// startTime is field 22 of /proc/<pid>/stat, or "" when pid is gone.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	// The command name (field 2) may hold spaces; fields after it may not.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// ownerAlive reports whether the process named by an owner label still
// runs; a malformed label counts as dead.
func ownerAlive(tag string) bool {
	pid, start, ok := strings.Cut(tag, ":")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		return false
	}
	return start != "" && startTime(n) == start
}

// runLabels are the labels of run id's containers and network.
func runLabels(id, specRun string) map[string]string {
	return map[string]string{labelRun: id, labelOwner: ownerTag(), labelSpec: specRun}
}

// CleanLeftovers removes the containers, networks and FORWARD rules of runs
// whose owner process is gone; runs still alive (parallel test packages)
// are left alone. It returns what it removed. Start calls it; the CLI's
// clean can too.
func CleanLeftovers(ctx context.Context) ([]string, error) {
	cli, err := connect(ctx, func(string, ...any) {})
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	return cleanLeftovers(ctx, cli)
}

// cleanLeftovers sweeps under the sweep lock (lockSweeps).
func cleanLeftovers(ctx context.Context, cli *client.Client) ([]string, error) {
	unlock, err := lockSweeps(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return sweepLeftovers(ctx, cli)
}

// sweepLockFile (in the temporary directory) makes sweeps of crashed runs
// one at a time across processes, and lets the package's hygiene tests
// hold off others' sweeps while they fake a crashed run and sweep it
// themselves: a docker run starting beside them (the docker pass beside
// the unit pass) would otherwise take their fake run first (CI saw it).
const sweepLockFile = "kafkachaos-docker-sweep.lock"

// lockSweeps takes the sweep lock, waiting at most two minutes (a holder
// keeps it for a sweep or a hygiene test: seconds).
func lockSweeps(ctx context.Context) (unlock func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	unlock, err = flock.LockContext(ctx, filepath.Join(os.TempDir(), sweepLockFile))
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: sweeping crashed runs: %w", err)
	}
	return unlock, nil
}

func sweepLeftovers(ctx context.Context, cli *client.Client) ([]string, error) {
	owners, err := runOwners(ctx, cli)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(owners)) {
		if ownerAlive(owners[id]) {
			continue
		}
		names, err := removeRun(ctx, cli, id, nil)
		removed = append(removed, names...)
		errs = append(errs, err)
	}
	names, err := removeOrphanRules(ctx, cli)
	return append(removed, names...), errors.Join(append(errs, err)...)
}

// runOwners maps every run id found on containers or networks to its owner.
func runOwners(ctx context.Context, cli *client.Client) (map[string]string, error) {
	f := client.Filters{}.Add("label", labelRun)
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: listing containers: %w", err)
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: listing networks: %w", err)
	}
	owners := map[string]string{}
	for _, c := range cs.Items {
		owners[c.Labels[labelRun]] = c.Labels[labelOwner]
	}
	for _, n := range ns.Items {
		owners[n.Labels[labelRun]] = n.Labels[labelOwner]
	}
	for id, owner := range hostDirOwners() {
		if _, ok := owners[id]; !ok {
			owners[id] = owner
		}
	}
	return owners, nil
}

// Leftovers lists what exists tagged with run id: containers, networks and
// host FORWARD rules. After Stop it must be empty.
func Leftovers(ctx context.Context, cli *client.Client, id string) ([]string, error) {
	f := client.Filters{}.Add("label", labelRun+"="+id)
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, err
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cs.Items {
		out = append(out, "container "+strings.Join(c.Names, ","))
	}
	for _, n := range ns.Items {
		out = append(out, "network "+n.Name)
	}
	rules, err := forwardRules(ctx)
	for _, r := range rules {
		if strings.Contains(r, ruleTagPrefix+id) {
			out = append(out, "rule "+r)
		}
	}
	host, herr := hostLeftovers(id)
	return append(out, host...), errors.Join(err, herr)
}

// removeRun force-removes run id's containers (with their volumes), then
// its network and its FORWARD rule, then its host directory (hostdir.go);
// unmount, when not nil, takes the run's own mounts down cleanly once the
// containers that used them are gone.
func removeRun(ctx context.Context, cli *client.Client, id string, unmount func() error) ([]string, error) {
	f := client.Filters{}.Add("label", labelRun+"="+id)
	var removed []string
	var errs []error
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	errs = append(errs, err)
	if err == nil {
		for _, c := range cs.Items {
			_, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
			if err == nil || isNotFound(err) {
				removed = append(removed, "container "+strings.Join(c.Names, ","))
			} else {
				errs = append(errs, err)
			}
		}
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	errs = append(errs, err)
	if err == nil {
		for _, n := range ns.Items {
			if _, err := cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err == nil || isNotFound(err) {
				removed = append(removed, "network "+n.Name)
			} else {
				errs = append(errs, err)
			}
		}
	}
	if n, err := removeForwardRule(ctx, id); err != nil {
		errs = append(errs, err)
	} else if n > 0 {
		removed = append(removed, "rule "+ruleTagPrefix+id)
	}
	if unmount != nil {
		errs = append(errs, unmount())
	}
	names, err := removeHostDir(id)
	removed = append(removed, names...)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("cluster/docker: removing run %s: %w", id, err)
	}
	return removed, nil
}

// removeOrphanRules deletes FORWARD rules of runs that have no container or
// network left (their network went, the rule stayed: a crash in between).
// Rules are listed before networks: a starting run creates its network
// before its rule, so a rule seen here whose run is alive always has its
// network in the later listing.
func removeOrphanRules(ctx context.Context, cli *client.Client) ([]string, error) {
	rules, err := forwardRules(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := runOwners(ctx, cli)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, r := range rules {
		_, after, ok := strings.Cut(r, ruleTagPrefix)
		if !ok {
			continue
		}
		id := strings.Trim(strings.Fields(after)[0], `"`)
		if _, live := owners[id]; live {
			continue
		}
		if _, err := removeForwardRule(ctx, id); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, "rule "+ruleTagPrefix+id)
		}
	}
	return removed, errors.Join(errs...)
}

// forwardRules lists the host FORWARD chain's rules, or none without
// iptables.
func forwardRules(ctx context.Context) ([]string, error) {
	if _, err := exec.LookPath("iptables"); err != nil {
		return nil, nil
	}
	out, err := exec.CommandContext(ctx, "iptables", "-w", "-S", "FORWARD").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: iptables -S FORWARD: %v: %s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), nil
}

func isNotFound(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "no such")
}
