package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

func TestFailedStartLeavesNothing(t *testing.T) {
	requireRealKafka(t, true)
	p := New(Options{Logf: t.Logf})
	err := p.Start(context.Background(), cluster.Spec{RunDir: t.TempDir(), Brokers: 2,
		BrokerConfigs: map[string]string{"num.io.threads": "many"}})
	if err == nil {
		p.Stop(context.Background())
		t.Fatal("Start with num.io.threads=many succeeded")
	}
	if !strings.Contains(err.Error(), "num.io.threads") {
		t.Errorf("error does not name the bad setting: %v", err)
	}
	left, lerr := Leftovers(context.Background(), p.RunID())
	if lerr != nil || len(left) > 0 {
		t.Errorf("failed start of run %s left %v (%v)", p.RunID(), left, lerr)
	}
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
