package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// resource is one thing a run created, found on the host by its tag.
type resource struct {
	kind   string // "process", "netns", "link", "rule", "owner"
	name   string // what to show a person
	remove func(ctx context.Context) error
}

var (
	nsPattern   = regexp.MustCompile(`^kc-([a-z0-9]{6})-n[0-9]+$`)
	linkPattern = regexp.MustCompile(`^kc[bvp]([a-z0-9]{6})(n[0-9]+)?$`)
	// the id ends the tag: the docker provider's rules are tagged
	// kafkachaos-docker-<id>, and "docker" is six such letters (a local
	// sweep would take a live docker run's rules for a dead run "docker"'s)
	tagPattern = regexp.MustCompile(`kafkachaos-([a-z0-9]{6})(?:[^a-z0-9-]|$)`)
)

// CleanLeftovers removes everything that runs whose owner process is gone
// left behind: JVMs, namespaces, bridges, veths, FORWARD rules and owner
// files. Runs whose owner is alive are left alone, so parallel test
// packages do not tear down each other's clusters. It returns what it
// removed; the CLI's clean and every new local run call it.
func CleanLeftovers(ctx context.Context) ([]string, error) {
	byRun, err := scan(ctx)
	var removed []string
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, id := range sortedKeys(byRun) {
		if ownerAlive(id) {
			continue
		}
		names, err := remove(ctx, byRun[id])
		removed = append(removed, names...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// RunsOwnedBy lists the runs whose owner file names process pid: after
// that process was killed, the runs to clean (CleanRun) and check
// (Leftovers) without touching anyone else's.
func RunsOwnedBy(pid int) []string {
	files, _ := filepath.Glob(filepath.Join(registryDir(), "*.owner"))
	var ids []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // removed meanwhile
		}
		owner, _, _ := strings.Cut(string(b), " ")
		if owner == strconv.Itoa(pid) {
			ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".owner"))
		}
	}
	sort.Strings(ids)
	return ids
}

// CleanRun removes what run id left, as CleanLeftovers does for every run
// whose owner is gone, and refuses while its owner is alive. It is how a
// test that killed a harness cleans up after it (its run alone: parallel
// packages' runs are none of its business). It returns what it removed.
func CleanRun(ctx context.Context, id string) ([]string, error) {
	if ownerAlive(id) {
		return nil, fmt.Errorf("cluster/local: run %s: its owner process is alive", id)
	}
	return removeRun(ctx, id)
}

// Leftovers lists what exists on the host tagged with run id; after Stop it
// must be empty.
func Leftovers(ctx context.Context, id string) ([]string, error) {
	byRun, err := scan(ctx)
	var names []string
	for _, r := range byRun[id] {
		names = append(names, r.kind+" "+r.name)
	}
	return names, err
}

// removeRun removes every resource of run id, processes first so that
// namespaces are empty when deleted, and returns what it removed.
func removeRun(ctx context.Context, id string) ([]string, error) {
	byRun, err := scan(ctx)
	removed, rerr := remove(ctx, byRun[id])
	return removed, errors.Join(err, rerr)
}

func remove(ctx context.Context, rs []resource) ([]string, error) {
	order := map[string]int{"process": 0, "mount": 0, "rule": 1, "netns": 2, "link": 3, "dir": 4, "owner": 5}
	sort.SliceStable(rs, func(i, j int) bool { return order[rs[i].kind] < order[rs[j].kind] })
	var names []string
	var errs []error
	for _, r := range rs {
		if err := r.remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("removing %s %s: %w", r.kind, r.name, err))
			continue
		}
		names = append(names, r.kind+" "+r.name)
	}
	return names, errors.Join(errs...)
}

// scan finds every tagged resource on the host, grouped by run id. A
// missing tool (no ip, no nft) means nothing of that kind can exist.
func scan(ctx context.Context) (map[string][]resource, error) {
	byRun := make(map[string][]resource)
	add := func(id string, r resource) { byRun[id] = append(byRun[id], r) }
	var errs []error
	for _, f := range []func(context.Context, func(string, resource)) error{
		scanProcesses, scanMounts, scanOwners, scanNetns, scanLinks, scanIptables, scanNft, scanTempDirs,
	} {
		if err := f(ctx, add); err != nil {
			errs = append(errs, err)
		}
	}
	return byRun, errors.Join(errs...)
}

func scanProcesses(_ context.Context, add func(string, resource)) error {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue // exited meanwhile
		}
		for _, arg := range bytes.Split(cmdline, []byte{0}) {
			if id, ok := strings.CutPrefix(string(arg), marker); ok {
				add(id, resource{"process", strconv.Itoa(pid), func(ctx context.Context) error { return killPid(ctx, pid) }})
				break
			}
		}
	}
	return nil
}

// killPid SIGKILLs a process we did not start (a crashed run's JVM) and
// waits until it is gone.
func killPid(ctx context.Context, pid int) error {
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	for procstat.StartTime(pid) != "" && !zombie(pid) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// zombie reports whether pid has exited but is not yet reaped by its
// parent: it holds no resources, so it counts as gone.
func zombie(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

func scanOwners(_ context.Context, add func(string, resource)) error {
	files, _ := filepath.Glob(filepath.Join(registryDir(), "*.owner"))
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".owner")
		add(id, resource{"owner", f, func(context.Context) error {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				return err
			}
			return nil
		}})
	}
	return nil
}

// scanTempDirs finds the scratch directories of runs given no RunDir.
func scanTempDirs(_ context.Context, add func(string, resource)) error {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPrefix+"*"))
	for _, d := range dirs {
		id, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), tempDirPrefix), "-")
		if !ok || len(id) != idLen {
			continue
		}
		add(id, resource{"dir", d, func(context.Context) error { return os.RemoveAll(d) }})
	}
	return nil
}

func scanNetns(ctx context.Context, add func(string, resource)) error {
	if !have("ip") {
		return nil
	}
	out, err := run(ctx, "", "ip", "netns", "list")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if m := nsPattern.FindStringSubmatch(f[0]); m != nil {
			name := f[0]
			add(m[1], resource{"netns", name, func(ctx context.Context) error {
				_, err := run(ctx, "", "ip", "netns", "del", name)
				return err
			}})
		}
	}
	return nil
}

func scanLinks(ctx context.Context, add func(string, resource)) error {
	if !have("ip") {
		return nil
	}
	out, err := run(ctx, "", "ip", "-o", "link", "show")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n") {
		// "12: kcbabc123: <...>" or "13: kcvabc123n1@if12: <...>"
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name := strings.TrimSuffix(strings.SplitN(f[1], "@", 2)[0], ":")
		if m := linkPattern.FindStringSubmatch(name); m != nil {
			add(m[1], resource{"link", name, func(ctx context.Context) error {
				out, err := run(ctx, "", "ip", "link", "del", name)
				if err != nil && strings.Contains(out, "Cannot find device") {
					return nil // a veth goes when its peer's namespace does
				}
				return err
			}})
		}
	}
	return nil
}

func scanIptables(ctx context.Context, add func(string, resource)) error {
	if !have("iptables") {
		return nil
	}
	out, err := run(ctx, "", "iptables", "-w", "-S", "FORWARD")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n") {
		m := tagPattern.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(line, "-A FORWARD ") {
			continue
		}
		args := append([]string{"-w", "-D"}, strings.Fields(strings.TrimPrefix(line, "-A "))...)
		add(m[1], resource{"rule", "iptables " + line, func(ctx context.Context) error {
			_, err := run(ctx, "", "iptables", args...)
			return err
		}})
	}
	return nil
}

// scanNft finds rules tagged in the host's ip filter FORWARD chain added
// through nft (when iptables is absent).
func scanNft(ctx context.Context, add func(string, resource)) error {
	if !have("nft") || have("iptables") {
		return nil // with iptables present, scanIptables sees the same rules
	}
	out, err := run(ctx, "", "nft", "-a", "list", "chain", "ip", "filter", "FORWARD")
	if err != nil {
		return nil // no such chain: no rule of ours either
	}
	for _, line := range strings.Split(out, "\n") {
		m := tagPattern.FindStringSubmatch(line)
		_, handle, ok := strings.Cut(line, "# handle ")
		if m == nil || !ok {
			continue
		}
		handle = strings.TrimSpace(handle)
		add(m[1], resource{"rule", "nft ip filter FORWARD handle " + handle, func(ctx context.Context) error {
			_, err := run(ctx, "", "nft", "delete", "rule", "ip", "filter", "FORWARD", "handle", handle)
			return err
		}})
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
