package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A failed start keeps, in the run directory, its error and each node's
// command lines and output, and names them in the error; it leaves nothing
// running. A bad setting fails the format step (no broker.log yet); a
// readiness wait that cannot succeed fails after the JVMs started.
func TestFailedStartLeavesNothing(t *testing.T) {
	requireRealKafka(t, true)
	for _, c := range []struct {
		name    string
		opts    Options
		configs map[string]string
		want    []string // the files each node must have, with what they must hold
		says    string   // in the error
	}{
		{"bad setting fails format", Options{}, map[string]string{"num.io.threads": "many"},
			[]string{"format.log:kafka.tools.StorageTool", "format.log:num.io.threads"}, "num.io.threads"},
		{"readiness times out", Options{StartTimeout: time.Millisecond}, nil,
			[]string{"format.log:kafka.tools.StorageTool", "broker.log:kafka.Kafka"}, "cluster not serving"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Logf = t.Logf
			p := New(c.opts)
			runDir := t.TempDir()
			err := p.Start(context.Background(), cluster.Spec{RunDir: runDir, Brokers: 2, BrokerConfigs: c.configs})
			if err == nil {
				p.Stop(context.Background())
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error does not say %q: %v", c.says, err)
			}
			assertStartFailureKept(t, err, filepath.Join(runDir, "kafka-"+p.RunID()), c.want)
			left, lerr := Leftovers(context.Background(), p.RunID())
			if lerr != nil || len(left) > 0 {
				t.Errorf("failed start of run %s left %v (%v)", p.RunID(), left, lerr)
			}
		})
	}
}

// assertStartFailureKept checks that dir holds the start error and, for
// nodes 1 and 2, each "file:text" of want, and that err names each file.
func assertStartFailureKept(t *testing.T, err error, dir string, want []string) {
	t.Helper()
	keptPath := filepath.Join(dir, startErrorFile)
	kept, rerr := os.ReadFile(keptPath)
	if rerr != nil || len(kept) == 0 || !strings.Contains(err.Error(), strings.TrimSpace(string(kept))) {
		t.Errorf("%s does not hold the start error (%v): %q", keptPath, rerr, kept)
	}
	if !strings.Contains(err.Error(), keptPath) {
		t.Errorf("error does not name %s", keptPath)
	}
	for _, node := range []string{"n1", "n2"} {
		for _, w := range want {
			file, text, _ := strings.Cut(w, ":")
			path := filepath.Join(dir, node, file)
			b, ferr := os.ReadFile(path)
			if ferr != nil || !strings.Contains(string(b), text) {
				t.Errorf("%s lacks %q (%v)", path, text, ferr)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name %s: %v", path, err)
			}
		}
	}
}

// TestFormatRefusesDashClusterID is why realbroker.NewClusterID never
// starts an id with '-': kafka-storage format then fails before any broker
// starts, as one local start in 64 did.
func TestFormatRefusesDashClusterID(t *testing.T) {
	requireRealKafka(t, false)
	dist, err := kafkadist.Ensure(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	n := &node{id: 1, ip: "127.0.0.1", port: 9092, ctrlPort: 9093, dir: t.TempDir()}
	props := serverProperties(n, []*node{n}, filepath.Join(n.dir, "data"), nil)
	if err := os.WriteFile(filepath.Join(n.dir, "server.properties"), []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	j := jvm{classpath: dist.Classpath(), heap: "256m", runID: ownedRunID(t), log4j: filepath.Join(n.dir, "none")}
	err = n.format(t.Context(), j, "-"+realbroker.NewClusterID()[1:])
	if err == nil || !strings.Contains(err.Error(), "expected one argument") {
		t.Fatalf("format with a '-' cluster id: %v", err)
	}
	if err := n.format(t.Context(), j, realbroker.NewClusterID()); err != nil {
		t.Fatalf("format with a drawn cluster id: %v", err)
	}
}

// ownedRunID is a run id registered as this process's until the test ends:
// without the owner file a parallel run's sweep of crashed runs takes what
// the test made (format JVMs, mounts) for leftovers and removes it.
func ownedRunID(t *testing.T) string {
	t.Helper()
	id := newRunID()
	if err := writeOwner(id, t.Name()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(ownerPath(id)) })
	return id
}

// childEnv makes the test binary, re-executed, run TestInterruptedRunChild.
const childEnv = "KAFKACHAOS_LOCAL_CHILD"

// TestInterruptedRunChild is the victim of TestInterruptedRunIsCleaned: it
// starts a cluster, says its run id and waits to be SIGKILLed, so Stop
// never runs.
func TestInterruptedRunChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("runs only as TestInterruptedRunIsCleaned's child process")
	}
	p := New(Options{Logf: t.Logf})
	if err := p.Start(context.Background(), cluster.Spec{Brokers: 1}); err != nil {
		fmt.Println("START FAILED", err)
		return
	}
	fmt.Println("RUNID", p.RunID())
	time.Sleep(3 * time.Minute)
}

func TestInterruptedRunIsCleaned(t *testing.T) {
	requireRealKafka(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestInterruptedRunChild$", "-test.v")
	child.Env = append(os.Environ(), childEnv+"=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	id := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RUNID "); ok {
			id = rest
			break
		}
		t.Log("child:", sc.Text())
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if id == "" {
		t.Fatal("child never reported a started cluster")
	}
	left, _ := Leftovers(ctx, id)
	if len(left) == 0 {
		t.Fatalf("killed run %s left nothing: this test proves nothing", id)
	}
	t.Logf("killed run %s left %v", id, left)
	removed, err := CleanLeftovers(ctx)
	if err != nil {
		t.Errorf("CleanLeftovers: %v", err)
	}
	t.Logf("CleanLeftovers removed %v", removed)
	if left, _ := Leftovers(ctx, id); len(left) > 0 {
		t.Errorf("after CleanLeftovers run %s still has %v", id, left)
	}
}

func TestLoopbackFallbackKillsAndPausesOnly(t *testing.T) {
	requireRealKafka(t, false)
	p := startCluster(t, Options{Loopback: true}, cluster.Spec{Brokers: 1,
		Topics: []cluster.TopicSpec{{Name: "t", Partitions: 2}}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if p.Namespaced() || cluster.Supports(p, cluster.CapPartition) {
		t.Errorf("loopback run claims network faults: %v", p.Capabilities())
	}
	if !cluster.Supports(p, cluster.CapKill) || !cluster.Supports(p, cluster.CapPause) {
		t.Errorf("loopback run lacks kill or pause: %v", p.Capabilities())
	}
	if err := p.Partition(ctx, [][]int32{{1}}); !errors.Is(err, ErrNoNetworkFaults) {
		t.Errorf("Partition in loopback mode = %v, want ErrNoNetworkFaults", err)
	}
	if err := p.Kill(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Restart(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := produceAndFetch(ctx, p, "t"); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
