package docker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
	"github.com/testcontainers/testcontainers-go"
)

// fakeRun creates what a run leaves: a network, a container on it and a
// FORWARD rule, labelled with owner.
func fakeRun(t *testing.T, ctx context.Context, image, owner string) string {
	t.Helper()
	cli, err := connect(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	id := newRunID()
	labels := map[string]string{labelRun: id, labelOwner: owner, labelSpec: t.Name()}
	w, err := createNetwork(ctx, cli, id, labels)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := addForwardRule(ctx, id); err != nil {
		t.Fatal(err)
	}
	_, err = testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: image, Name: containerName(id, 1), Entrypoint: []string{"sleep", "600"},
			Labels: labels, Networks: []string{w.name},
		},
		Started: true,
		Logger:  tcLogger{t.Logf},
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// holdSweeps keeps other processes' sweeps off for the rest of the test,
// whose fake crashed runs are its own to sweep.
func holdSweeps(t *testing.T) {
	t.Helper()
	unlock, err := lockSweeps(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
}

// A crashed run's containers, network and rule go at the next cleanup; a
// run whose owner lives (a parallel test package) stays.
func TestDockerCleanLeftoversSparesLiveRuns(t *testing.T) {
	needDocker(t)
	ctx := t.Context()
	image, err := Image(ctx, "", "", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	holdSweeps(t)
	pid, _, _ := strings.Cut(ownerTag(), ":")
	dead := fakeRun(t, ctx, image, pid+":1") // this pid, another start time: a reused pid
	live := fakeRun(t, ctx, image, ownerTag())
	cli, err := connect(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	t.Cleanup(func() {
		removeRun(context.Background(), cli, live, nil)
		assertNothingLeft(t, live)
	})
	if left, _ := Leftovers(ctx, cli, dead); len(left) != 3 {
		t.Fatalf("fake crashed run has %v, want a container, a network and a rule", left)
	}
	orphan := newRunID() // a rule whose network is gone: a crash between the two removals
	if _, err := addForwardRule(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	removed, err := sweepLeftovers(ctx, cli)
	if err != nil {
		t.Fatalf("CleanLeftovers: %v", err)
	}
	for _, want := range []string{"container /" + containerName(dead, 1), "network kafkachaos-" + dead,
		"rule " + ruleTagPrefix + dead, "rule " + ruleTagPrefix + orphan} {
		if !slices.Contains(removed, want) {
			t.Errorf("CleanLeftovers removed %v, missing %q", removed, want)
		}
	}
	for _, r := range removed {
		// other crashed runs' leftovers (a run killed before this
		// package's tests) go too; never the live run's
		if strings.Contains(r, live) {
			t.Errorf("CleanLeftovers removed %q of the live run %s", r, live)
		}
	}
	assertNothingLeft(t, dead)
	assertNothingLeft(t, orphan)
	if left, _ := Leftovers(ctx, cli, live); len(left) != 3 {
		t.Errorf("live run now has %v: cleanup touched a run whose owner is alive", left)
	}
}

// The engine from scripts/dockerd.sh leaves the host FORWARD policy alone,
// so cluster/local's bridge keeps working beside it.
func TestDockerEngineLeavesForwardPolicy(t *testing.T) {
	needDocker(t)
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Skip("iptables not installed: no FORWARD chain to check")
	}
	out, err := exec.Command("iptables", "-w", "-S", "FORWARD").CombinedOutput()
	if err != nil {
		t.Fatalf("iptables -S FORWARD: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "-P FORWARD ACCEPT") {
		t.Errorf("FORWARD policy is not ACCEPT with the engine running:\n%s", out)
	}
}

// fakeHostDir makes run id's host directory with owner and a lazyfs
// mounted in it, as a run with lazy disks has.
func fakeHostDir(t *testing.T, id, owner string) {
	t.Helper()
	if err := makeHostDir(id); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hostDir(id), ownerFile), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	var d disks
	back := filepath.Join(nodeHostDir(id, 1), "data-backing")
	if err := os.MkdirAll(back, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Mount(1, back, filepath.Join(nodeHostDir(id, 1), "data"), id); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Unmount() })
}

// A crashed run's lazyfs mounts and host directory go at the next cleanup,
// with no container or network left to name the run; a live run's stay.
func TestDockerCleanLeftoversTakesACrashedRunsDisks(t *testing.T) {
	needDocker(t)
	if err := lazyfs.Available(); err != nil {
		t.Skipf("lazyfs cannot mount here: %v", err)
	}
	ctx := t.Context()
	holdSweeps(t)
	pid, _, _ := strings.Cut(ownerTag(), ":")
	dead, live := newRunID(), newRunID()
	fakeHostDir(t, dead, pid+":1")
	fakeHostDir(t, live, ownerTag())
	t.Cleanup(func() { removeHostDir(live) })
	cli, err := connect(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	removed, err := sweepLeftovers(ctx, cli)
	if err != nil {
		t.Fatalf("CleanLeftovers: %v", err)
	}
	want := []string{"mount " + filepath.Join(nodeHostDir(dead, 1), "data"), "dir " + hostDir(dead)}
	for _, w := range want {
		if !slices.Contains(removed, w) {
			t.Errorf("CleanLeftovers removed %v, missing %q", removed, w)
		}
	}
	if left, err := hostLeftovers(dead); len(left) > 0 || err != nil {
		t.Errorf("crashed run left %v (%v)", left, err)
	}
	if left, _ := hostLeftovers(live); len(left) != 2 {
		t.Errorf("live run now has %v, want its mount and dir: cleanup touched a run whose owner is alive", left)
	}
}
