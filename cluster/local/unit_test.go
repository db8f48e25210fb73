package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

func TestServerPropertiesOverridesAllButIdentity(t *testing.T) {
	nodes := []*node{{id: 1, ip: "10.213.9.1", port: 9092, ctrlPort: 9093}, {id: 2, ip: "10.213.9.2", port: 9092, ctrlPort: 9093}}
	props := serverProperties(nodes[1], nodes, "/data", map[string]string{
		"unclean.leader.election.enable": "true",
		"listeners":                      "PLAINTEXT://0.0.0.0:1",
	})
	for _, want := range []string{
		"unclean.leader.election.enable=true\n",
		"listeners=PLAINTEXT://10.213.9.2:9092,CONTROLLER://10.213.9.2:9093\n",
		"controller.quorum.voters=1@10.213.9.1:9093,2@10.213.9.2:9093\n",
		"node.id=2\n", "log.dirs=/data\n",
		"default.replication.factor=2\n", "transaction.state.log.min.isr=2\n",
	} {
		if !strings.Contains(props, want) {
			t.Errorf("server.properties lacks %q:\n%s", want, props)
		}
	}
}

func TestNamesFitInterfacesAndAreFoundByScans(t *testing.T) {
	id := newRunID()
	if len(id) != idLen || strings.Trim(id, idAlphabet) != "" {
		t.Fatalf("run id %q", id)
	}
	for _, name := range []string{bridgeName(id), vethName(id, 200), vpeerName(id, 200)} {
		if len(name) > 15 {
			t.Errorf("interface name %q longer than 15 bytes", name)
		}
		if m := linkPattern.FindStringSubmatch(name); m == nil || m[1] != id {
			t.Errorf("link scan does not attribute %q to run %s", name, id)
		}
	}
	if m := nsPattern.FindStringSubmatch(nsName(id, 3)); m == nil || m[1] != id {
		t.Errorf("netns scan does not attribute %q to run %s", nsName(id, 3), id)
	}
	if m := tagPattern.FindStringSubmatch(`comment "` + ruleTag(id) + `"`); m == nil || m[1] != id {
		t.Errorf("rule scan does not attribute tag %q", ruleTag(id))
	}
	for _, line := range []string{"-A FORWARD -i kc-x -m comment --comment " + ruleTag(id) + " -j ACCEPT", ruleTag(id)} {
		if m := tagPattern.FindStringSubmatch(line); m == nil || m[1] != id {
			t.Errorf("rule scan does not attribute %q to run %s", line, id)
		}
	}
	// the docker provider's rule (cluster/docker's ruleTagPrefix): none of ours
	if got := tagPattern.FindStringSubmatch("-A FORWARD -i br-1 -m comment --comment kafkachaos-docker-" + id + " -j ACCEPT"); got != nil {
		t.Errorf("rule scan claims a docker run's rule: %v", got)
	}
	if got := linkPattern.FindStringSubmatch("kcbx"); got != nil {
		t.Errorf("link scan claims a foreign interface: %v", got)
	}
}

func TestOwnerAliveOnlyForLiveOwner(t *testing.T) {
	t.Setenv("KAFKACHAOS_RUNS_REGISTRY", t.TempDir())
	if err := writeOwner("live01", "test"); err != nil {
		t.Fatal(err)
	}
	if !ownerAlive("live01") {
		t.Error("this process is not seen as the owner it registered")
	}
	// A dead owner: a pid with another start time (pid reuse) or none.
	reused := fmt.Sprintf("%d not-my-start-time\nx\n", os.Getpid())
	os.WriteFile(filepath.Join(registryDir(), "reuse1.owner"), []byte(reused), 0o644)
	os.WriteFile(filepath.Join(registryDir(), "dead01.owner"), []byte("999999999 1\nx\n"), 0o644)
	if ownerAlive("reuse1") || ownerAlive("dead01") || ownerAlive("nofile") {
		t.Error("a dead or missing owner is seen as alive")
	}
}

// TestLoopbackHasNoNetworkFaults: without namespaces every network hook
// says so (realbroker's tests cover validating before that).
func TestLoopbackHasNoNetworkFaults(t *testing.T) {
	p := New(Options{})
	p.setNodes([]*node{{id: 1}, {id: 2}, {id: 3}})
	ctx := t.Context()
	if err := p.Partition(ctx, [][]int32{{1}, {2, 3, ClientNode}}); !errors.Is(err, ErrNoNetworkFaults) {
		t.Errorf("valid partition without namespaces = %v, want ErrNoNetworkFaults", err)
	}
	if err := p.CutReplication(ctx, [][2]int32{{1, 2}}); !errors.Is(err, ErrNoNetworkFaults) {
		t.Errorf("CutReplication without namespaces = %v, want ErrNoNetworkFaults", err)
	}
	if err := p.PacketLoss(ctx, 1, 5); !errors.Is(err, ErrNoNetworkFaults) {
		t.Errorf("PacketLoss without namespaces = %v, want ErrNoNetworkFaults", err)
	}
	if err := p.SlowLink(ctx, 1, 8000); !errors.Is(err, ErrNoNetworkFaults) {
		t.Errorf("SlowLink without namespaces = %v, want ErrNoNetworkFaults", err)
	}
	if p.Name() != "local" || cluster.Supports(p, cluster.CapPartition) {
		t.Errorf("name %q caps %v", p.Name(), p.Capabilities())
	}
}

// TestCleanLeftoversKillsOrphanedMarkedProcess: a process carrying a run
// marker whose run has no live owner is what a crashed harness leaves when
// its JVMs outlive it; CleanLeftovers must kill it.
// The real registry is kept: with an empty one every live run on the
// machine would look orphaned.
func TestCleanLeftoversKillsOrphanedMarkedProcess(t *testing.T) {
	id := newRunID()
	orphan := exec.Command("bash", "-c", "sleep 60; true", marker+id)
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- orphan.Wait() }()
	defer orphan.Process.Kill()
	// bash forks to run sleep, and until the child execs it carries the
	// same marked command line: it may be listed too, and is as orphaned.
	left, err := Leftovers(t.Context(), id)
	want := fmt.Sprintf("process %d", orphan.Process.Pid)
	if err != nil || !slices.Contains(left, want) {
		t.Fatalf("Leftovers(%s) = %v, %v; want the marked %s", id, left, err, want)
	}
	for _, l := range left {
		if !strings.HasPrefix(l, "process ") {
			t.Errorf("Leftovers(%s) lists %q: only processes were left", id, l)
		}
	}
	if _, err := CleanLeftovers(t.Context()); err != nil {
		t.Logf("CleanLeftovers (other runs' leftovers may fail): %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("orphaned marked process still running after CleanLeftovers")
	}
	if left, _ := Leftovers(t.Context(), id); len(left) > 0 {
		t.Errorf("still left: %v", left)
	}
}

// TestReplicationRulesLoadIntoNsTable asks the kernel (nft -c: check, never
// commit) whether the replication rules load into the table namespaces get:
// the chains they rewrite must exist there under the names they use.
func TestReplicationRulesLoadIntoNsTable(t *testing.T) {
	if os.Geteuid() != 0 || !have("nft") {
		t.Skip("needs root and nft")
	}
	for _, peers := range [][]string{{"10.213.9.2", "10.213.9.3"}, nil} {
		script := nsTable + realbroker.ReplicationRules("kafkachaos", peers, 9092)
		if out, err := run(context.Background(), script, "nft", "-c", "-f", "-"); err != nil {
			t.Errorf("nft rejects the replication rules (peers %v): %v\n%s\n%s", peers, err, out, script)
		}
	}
}

// A killed harness's runs are found by its pid and cleaned one by one;
// a run whose owner is alive is refused.
func TestRunsOwnedByAndCleanRun(t *testing.T) {
	t.Setenv("KAFKACHAOS_RUNS_REGISTRY", t.TempDir())
	os.WriteFile(filepath.Join(registryDir(), "dead02.owner"), []byte("999999998 1\nx\n"), 0o644)
	os.WriteFile(filepath.Join(registryDir(), "dead01.owner"), []byte("999999998 1\nx\n"), 0o644)
	os.WriteFile(filepath.Join(registryDir(), "other1.owner"), []byte("999999997 1\nx\n"), 0o644)
	if err := writeOwner("live01", "test"); err != nil {
		t.Fatal(err)
	}
	if got := RunsOwnedBy(999999998); !slices.Equal(got, []string{"dead01", "dead02"}) {
		t.Errorf("RunsOwnedBy(999999998) = %v, want [dead01 dead02]", got)
	}
	if got := RunsOwnedBy(os.Getpid()); !slices.Equal(got, []string{"live01"}) {
		t.Errorf("RunsOwnedBy(self) = %v, want [live01]", got)
	}
	if _, err := CleanRun(t.Context(), "live01"); err == nil {
		t.Error("CleanRun removed a run whose owner is alive")
	}
	removed, err := CleanRun(t.Context(), "dead01")
	if err != nil || len(removed) != 1 || !strings.HasPrefix(removed[0], "owner ") {
		t.Errorf("CleanRun(dead01) = %v, %v; want its owner file", removed, err)
	}
	if got := RunsOwnedBy(999999998); !slices.Equal(got, []string{"dead02"}) {
		t.Errorf("after CleanRun(dead01): RunsOwnedBy = %v, want [dead02] (other runs untouched)", got)
	}
}

// TestVerifiedNamesEveryEffectItCauses pins realbroker's effect names to
// cluster's: realbroker cannot import cluster, so a renamed Effect would
// otherwise leave a hook silently unexplained.
func TestVerifiedNamesEveryEffectItCauses(t *testing.T) {
	p := New(Options{})
	for _, e := range []cluster.Effect{cluster.EffectKill, cluster.EffectStop, cluster.EffectRestart, cluster.EffectPause,
		cluster.EffectResume, cluster.EffectCut, cluster.EffectHeal, cluster.EffectPacketLoss, cluster.EffectSlowLink} {
		if p.Verified(e) == "" {
			t.Errorf("Verified(%q) is empty", e)
		}
	}
	for _, e := range []cluster.Effect{cluster.EffectLeader, cluster.EffectRequest} {
		if got := p.Verified(e); got != "" {
			t.Errorf("Verified(%q) = %q for an effect the provider cannot cause", e, got)
		}
	}
}

// Loopback brokers' ports come from below the ephemeral range, where no
// other process's outgoing connection can take one before the broker
// binds it; they are distinct and free.
func TestFreePortsAreBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	ports, err := freePorts(9)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < portFloor || p >= low || seen[p] {
			t.Errorf("port %d: want distinct ports in [%d, %d): %v", p, portFloor, low, ports)
		}
		seen[p] = true
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d not free after freePorts: %v", p, err)
			continue
		}
		l.Close()
	}
}
