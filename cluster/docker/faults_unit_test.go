package docker

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/moby/moby/api/types/container"
)

// The image's tag names its recipe: a change of the packages or of an
// embedded file is a new tag, so an image built before is never reused.
func TestLocalImageTagFollowsTheRecipe(t *testing.T) {
	recipe := imageRecipe()
	if !strings.Contains(string(recipe[1]), "faketime") {
		t.Fatalf("recipe packages %q: want faketime (clock skew preloads it)", recipe[1])
	}
	tag := LocalImage("4.4.0")
	if want := "kafkachaos/kafka:4.4.0-" + digestOf(recipe); tag != want {
		t.Errorf("LocalImage = %q, want %q", tag, want)
	}
	for i := range recipe {
		changed := slices.Clone(recipe)
		changed[i] = append(slices.Clone(recipe[i]), '\n')
		if digestOf(changed) == digestOf(recipe) {
			t.Errorf("changing recipe part %d leaves the digest %s", i, digestOf(recipe))
		}
	}
	if digestOf([][]byte{[]byte("ab"), []byte("c")}) == digestOf([][]byte{[]byte("a"), []byte("bc")}) {
		t.Error("moving a byte across parts keeps the digest")
	}
}

// testProvider is a provider with a run id and a network, never started:
// enough to build containers' configuration.
func testProvider(t *testing.T, opts Options) *Provider {
	t.Helper()
	opts.Logf = t.Logf
	p := New(opts)
	p.id = "ut-" + t.Name()
	p.net = &runNet{name: "kafkachaos-" + p.id}
	t.Cleanup(func() {
		p.unmountDisks()
		if _, err := removeHostDir(p.id); err != nil {
			t.Errorf("removing the host dir: %v", err)
		}
	})
	if err := makeHostDir(p.id); err != nil {
		t.Fatal(err)
	}
	return p
}

func bindsOf(p *Provider, n *node, env map[string]string) []string {
	hc := &container.HostConfig{}
	p.containerRequest(n, env).HostConfigModifier(hc)
	return hc.Binds
}

func TestClockContainerConfig(t *testing.T) {
	p := testProvider(t, Options{})
	n := &node{id: 2, ip: "10.214.9.12"}
	env := map[string]string{"KAFKA_NODE_ID": "2"}
	if err := p.prepareNode(cluster.Spec{Clocks: true}, n, env); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"KAFKACHAOS_FAKETIME":          "1",
		"FAKETIME_TIMESTAMP_FILE":      clockMount + "/" + clockFileName,
		"FAKETIME_DONT_FAKE_MONOTONIC": "1",
		"FAKETIME_FORCE_MONOTONIC_FIX": "0",
		"KAFKA_NODE_ID":                "2",
	} {
		if env[k] != want {
			t.Errorf("env %s = %q, want %q", k, env[k], want)
		}
	}
	if _, ok := env["LD_PRELOAD"]; ok {
		t.Error("LD_PRELOAD in the container's env: the entrypoint preloads into the broker's JVM alone")
	}
	want := []string{filepath.Join(hostDir(p.id), "n2", "clock") + ":" + clockMount}
	if got := bindsOf(p, n, env); !slices.Equal(got, want) {
		t.Errorf("binds %v, want %v (a directory: a file's bind keeps the inode a rename replaces)", got, want)
	}
	b, err := os.ReadFile(filepath.Join(p.clockDir(2), clockFileName))
	if err != nil || strings.TrimSpace(string(b)) != "+0.000" {
		t.Errorf("control file %q (%v), want +0.000: brokers start at real time", b, err)
	}
	if !slices.Contains(p.Capabilities(), cluster.CapClock) {
		t.Errorf("capabilities %v lack clock", p.Capabilities())
	}
}

func TestNoClockWithoutTheSpecAskingOrWithAForeignImage(t *testing.T) {
	p := testProvider(t, Options{})
	p.nodes = []*node{{id: 1}}
	n := &node{id: 1}
	env := map[string]string{}
	if err := p.prepareNode(cluster.Spec{}, n, env); err != nil {
		t.Fatal(err)
	}
	if len(env) != 0 || len(bindsOf(p, n, env)) != 0 {
		t.Errorf("a run without clocks or disks got env %v, binds %v", env, bindsOf(p, n, env))
	}
	if ref, err := p.clockImage("4.4.0"); ref != LocalImage("4.4.0") || err != nil {
		t.Errorf("clockImage = %q, %v; want %s", ref, err, LocalImage("4.4.0"))
	}
	foreign := New(Options{Image: "apache/kafka:4.4.0", Logf: t.Logf})
	if slices.Contains(foreign.Capabilities(), cluster.CapClock) {
		t.Errorf("apache/kafka (no libfaketime) offers clock: %v", foreign.Capabilities())
	}
	if _, err := foreign.clockImage("4.4.0"); err == nil || !strings.Contains(err.Error(), "libfaketime") {
		t.Errorf("clockImage with apache/kafka: %v, want a refusal naming libfaketime", err)
	}
}

// The entrypoint preloads libfaketime into the broker's JVM, and only
// there, when KAFKACHAOS_FAKETIME is set (a stand-in java prints what it
// got; no Docker).
func TestEntrypointPreloadsFaketimeIntoTheBrokerOnly(t *testing.T) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		t.Skip("libfaketime is not installed on this host (the entrypoint looks for it where the image has it)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run")
	java := "#!/bin/sh\necho \"java $* LD_PRELOAD=${LD_PRELOAD:-}\" >>" + filepath.Join(dir, "calls") + "\n"
	if err := os.WriteFile(script, entrypointScript, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "java"), []byte(java), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, faketime := range []string{"1", ""} {
		os.Remove(filepath.Join(dir, "calls"))
		cmd := exec.Command("bash", script)
		cmd.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "KAFKACHAOS_SERVER_PROPERTIES=" + filepath.Join(dir, "server.properties"),
			"CLUSTER_ID=abc", "KAFKACHAOS_FAKETIME=" + faketime}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("entrypoint: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "calls"))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "StorageTool") || !strings.Contains(lines[1], "kafka.Kafka") {
			t.Fatalf("java calls %q: want the storage format, then the broker", lines)
		}
		if !strings.HasSuffix(lines[0], "LD_PRELOAD=") {
			t.Errorf("KAFKACHAOS_FAKETIME=%q: the storage format ran with a preload: %s", faketime, lines[0])
		}
		wantBroker := "LD_PRELOAD="
		if faketime != "" {
			wantBroker += libs[0]
		}
		if !strings.HasSuffix(lines[1], wantBroker) {
			t.Errorf("KAFKACHAOS_FAKETIME=%q: broker %s, want it to end %s", faketime, lines[1], wantBroker)
		}
	}
}

func TestDiskContainerConfig(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		t.Skipf("lazyfs cannot mount here: %v", err)
	}
	t.Setenv("DOCKER_HOST", EngineHost)
	p := testProvider(t, Options{})
	n := &node{id: 3, ip: "10.214.9.13"}
	env := map[string]string{}
	if err := p.prepareNode(cluster.Spec{LazyDisks: true}, n, env); err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(hostDir(p.id), "n3", "data")
	if got, want := bindsOf(p, n, env), []string{mnt + ":" + dataDir}; !slices.Equal(got, want) {
		t.Errorf("binds %v, want %v", got, want)
	}
	ms, err := hostMounts(p.id)
	if err != nil || len(ms) != 1 || ms[0].Path != mnt {
		t.Fatalf("run's mounts %+v (%v), want one lazyfs at %s", ms, err, mnt)
	}
	m, err := p.disks.Disk(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.FailWrites(syscall.ENOSPC); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mnt, "x"), []byte("x"), 0o644); err == nil || p.DiskFailures(3) == 0 {
		t.Errorf("write under a failing disk: %v, %d failures; want ENOSPC counted", err, p.DiskFailures(3))
	}
	if !slices.Contains(p.Capabilities(), cluster.CapDisk) {
		t.Errorf("capabilities %v lack disk (root, /dev/fuse, local engine)", p.Capabilities())
	}
	if _, err := p.disks.Disk(1); err == nil || !strings.Contains(err.Error(), "LazyDisks") {
		t.Errorf("node 1 without a disk: %v, want an error naming LazyDisks", err)
	}
}

// A crashed run's mount, served by nobody, goes with its host directory.
func TestRemoveHostDirDetachesACrashedRunsMounts(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		t.Skipf("lazyfs cannot mount here: %v", err)
	}
	const id = "utestcrash"
	if err := makeHostDir(id); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(hostDir(id), "n1", "data-backing")
	os.MkdirAll(back, 0o755)
	m, err := lazyfs.Mount(lazyfs.Options{Backing: back, Mountpoint: filepath.Join(hostDir(id), "n1", "data"), Tag: id})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unmount()
	if owners := hostDirOwners(); ownerAlive(owners[id]) != true {
		t.Errorf("owner of %s = %q: want this live process", id, owners[id])
	}
	removed, err := removeHostDir(id)
	if err != nil || len(removed) != 2 {
		t.Errorf("removeHostDir: %v, %v; want the mount and the dir", removed, err)
	}
	if left, err := hostLeftovers(id); len(left) > 0 || err != nil {
		t.Errorf("left: %v (%v)", left, err)
	}
}

func TestDiskFaultsRefusedWithARemoteEngine(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		t.Skipf("lazyfs cannot mount here: %v", err)
	}
	t.Setenv("DOCKER_HOST", "tcp://10.0.0.9:2375")
	if err := faultsPossible(cluster.Spec{LazyDisks: true}); err == nil || !strings.Contains(err.Error(), "not on it") {
		t.Errorf("lazy disks with a remote engine: %v, want a refusal", err)
	}
	if slices.Contains(New(Options{}).Capabilities(), cluster.CapDisk) {
		t.Error("disk offered with a remote engine")
	}
	if err := faultsPossible(cluster.Spec{}); err != nil {
		t.Errorf("a run without disks refused: %v", err)
	}
}

// realbroker's disk modes are cluster's, which the nemesis passes on.
func TestDiskModesMirrorCluster(t *testing.T) {
	for _, pair := range [][2]string{{cluster.DiskEIO, realbroker.DiskEIO}, {cluster.DiskENOSPC, realbroker.DiskENOSPC},
		{cluster.DiskReadEIO, realbroker.DiskReadEIO}} {
		if pair[0] != pair[1] {
			t.Errorf("cluster's mode %q is realbroker's %q", pair[0], pair[1])
		}
	}
}
