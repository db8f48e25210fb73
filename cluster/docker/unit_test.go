package docker

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The provider names properties as environment variables; the image's
// entrypoint must map them back to the same keys (this runs the embedded
// script's print-config mode with bash, no Docker).
func TestEnvNamesRoundTripThroughEntrypoint(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	keys := []string{"node.id", "listener.security.protocol.map", "transaction.state.log.min.isr",
		"some_key.with-dash", "log.dirs"}
	dir := t.TempDir()
	script := filepath.Join(dir, "run")
	if err := os.WriteFile(script, entrypointScript, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "print-config")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "KAFKACHAOS_SERVER_PROPERTIES=" + filepath.Join(dir, "server.properties"),
		"KAFKA_HEAP_OPTS=-Xmx1g", "KAFKA_OPTS=-Dx=y", "CLUSTER_ID=abc"}
	for i, k := range keys {
		cmd.Env = append(cmd.Env, envName(k)+"=v"+string(rune('0'+i))+"=x")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("entrypoint print-config: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	for i, k := range keys {
		if want := "v" + string(rune('0'+i)) + "=x"; got[k] != want {
			t.Errorf("%s (as %s) -> %q, want %q; all: %v", k, envName(k), got[k], want, got)
		}
	}
	if len(got) != len(keys) {
		t.Errorf("properties %v: want exactly %v (JVM variables and CLUSTER_ID are not properties)", got, keys)
	}
}

func TestEnvName(t *testing.T) {
	for key, want := range map[string]string{
		"node.id":                        "KAFKA_NODE_ID",
		"listener.security.protocol.map": "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
		"a_b.c-d":                        "KAFKA_A__B_C___D",
	} {
		if got := envName(key); got != want {
			t.Errorf("envName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestNodeEnvFixesIdentityOverOverrides(t *testing.T) {
	ips := map[int32]string{1: "10.214.9.11", 2: "10.214.9.12", 3: "10.214.9.13"}
	env := nodeEnv(2, ips, nil, "cid", "256m", map[string]string{"node.id": "7", "min.insync.replicas": "2"})
	for k, want := range map[string]string{
		"KAFKA_NODE_ID":                          "2",
		"KAFKA_ADVERTISED_LISTENERS":             "PLAINTEXT://10.214.9.12:9092",
		"KAFKA_CONTROLLER_QUORUM_VOTERS":         "1@10.214.9.11:9093,2@10.214.9.12:9093,3@10.214.9.13:9093",
		"KAFKA_MIN_INSYNC_REPLICAS":              "2",
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "3",
		"KAFKA_HEAP_OPTS":                        "-Xms256m -Xmx256m",
		"CLUSTER_ID":                             "cid",
	} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
}

func TestNftScript(t *testing.T) {
	healed := nftScript(nil, 0)
	if strings.Contains(healed, "add element") || strings.Contains(healed, "numgen") || strings.Contains(healed, " drop\n") {
		t.Errorf("healed script blocks something:\n%s", healed)
	}
	if !strings.HasPrefix(healed, "add table inet kafkachaos\ndelete table inet kafkachaos\n") {
		t.Errorf("script does not recreate the table atomically:\n%s", healed)
	}
	s := nftScript([]string{"10.0.0.1", "10.0.0.2"}, 30)
	for _, want := range []string{"add element inet kafkachaos blocked { 10.0.0.1, 10.0.0.2 }", "numgen random mod 100 < 30 drop"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if all := nftScript(nil, 100); !strings.Contains(all, "add rule inet kafkachaos loss drop\n") {
		t.Errorf("100%% loss is not an unconditional drop:\n%s", all)
	}
}

func TestMirrorIn(t *testing.T) {
	dir := t.TempDir()
	deb822 := filepath.Join(dir, "debian.sources")
	os.WriteFile(deb822, []byte("Types: deb\n# http://snapshot.debian.org/archive/debian/x\nURIs: http://mirror.example/debian/\nSuites: bookworm\n"), 0o644)
	oneLine := filepath.Join(dir, "x.list")
	os.WriteFile(oneLine, []byte("deb https://packages.example/apt stable main\ndeb http://m.example/debian bookworm main\n"), 0o644)
	other := filepath.Join(dir, "y.list")
	os.WriteFile(other, []byte("deb https://packages.example/apt stable main\n"), 0o644)
	for path, want := range map[string]string{deb822: "http://mirror.example/debian", oneLine: "http://m.example/debian", other: ""} {
		if got := mirrorIn(path); got != want {
			t.Errorf("mirrorIn(%s) = %q, want %q", filepath.Base(path), got, want)
		}
	}
}

func TestOwnerAlive(t *testing.T) {
	if !ownerAlive(ownerTag()) {
		t.Errorf("this process's tag %q reads as dead", ownerTag())
	}
	pid, _, _ := strings.Cut(ownerTag(), ":")
	for _, tag := range []string{pid + ":1", "", "x:y", "999999999:1"} {
		if ownerAlive(tag) {
			t.Errorf("ownerAlive(%q) = true: a reused pid or a garbage label must count as dead", tag)
		}
	}
}

// removeBuildDir must unmount what debootstrap left mounted (here a tmpfs
// standing in for a bind mount of /dev) before deleting, never delete
// through it.
func TestRemoveBuildDirUnmountsFirst(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir, err := os.MkdirTemp("", "kafkachaos-build-test-")
	if err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(dir, "rootfs", "dev")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, ""); err != nil {
		t.Skipf("cannot mount tmpfs here: %v", err)
	}
	got, err := mountsUnder(dir)
	if err != nil || len(got) != 1 || got[0] != mnt {
		syscall.Unmount(mnt, syscall.MNT_DETACH)
		t.Fatalf("mountsUnder = %v, %v; want [%s]", got, err, mnt)
	}
	removeBuildDir(dir, t.Logf)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("build dir still there (stat: %v)", err)
	}
	if left, _ := mountsUnder(dir); len(left) != 0 {
		t.Errorf("still mounted: %v", left)
	}
}

func TestNoEngineIsErrNoEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
	_, err := CleanLeftovers(t.Context())
	if !errors.Is(err, ErrNoEngine) || !strings.Contains(err.Error(), "scripts/dockerd.sh start") {
		t.Errorf("err %v, want ErrNoEngine saying how to start one", err)
	}
	if m := strings.Join(Missing(t.Context()), "; "); !strings.Contains(m, "no Docker engine answers") {
		t.Errorf("Missing() = %q, want the absent engine named", m)
	}
}
