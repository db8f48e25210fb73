package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/external/externaltest"
)

// cliEnv makes this test binary the kafkachaos command (TestMain), so a
// test can run it as a process of its own and kill it.
const cliEnv = "KAFKACHAOS_TEST_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// tables lists the nft tables of namespace ns.
func tables(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", ns, "nft", "list", "tables").CombinedOutput()
	if err != nil {
		t.Fatalf("nft list tables in %s: %v: %s", ns, err, out)
	}
	return string(out)
}

// runTables are the hosts' tables of kafkachaos runs, by namespace.
func runTables(t *testing.T, f *externaltest.Hosts) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ns := range f.NS {
		for _, l := range strings.Split(tables(t, ns), "\n") {
			if strings.Contains(l, "kafkachaos_") {
				out[ns] += strings.TrimSpace(l) + "\n"
			}
		}
	}
	return out
}

// A `kafkachaos run` on an external cluster killed (SIGKILL) while its
// partition is in place leaves its nft tables on the hosts, and nothing
// heals them; `kafkachaos clean --inventory` removes them, and a second
// clean finds nothing.
func TestCleanInventoryRemovesWhatAKilledRunLeft(t *testing.T) {
	externaltest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	f := externaltest.Start(ctx, t)
	var stderr bytes.Buffer
	run := exec.Command(os.Args[0], "run", "--cluster", "external", "--inventory", f.Inventory, "--nemesis", "partition",
		"--time-limit", "40s", "--runs", t.TempDir(), "--quiet")
	run.Env, run.Stderr = append(os.Environ(), cliEnv+"=1"), &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	var left map[string]string
	for deadline := time.Now().Add(3 * time.Minute); len(left) == 0; {
		select {
		case err := <-exited:
			t.Fatalf("the run ended before its partition was in place: %v; stderr %s", err, stderr.String())
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			run.Process.Kill()
			t.Fatalf("no partition table on the hosts within 3 minutes; stderr %s", stderr.String())
		}
		left = runTables(t, f)
	}
	run.Process.Signal(syscall.SIGKILL)
	<-exited
	if again := runTables(t, f); len(again) == 0 {
		t.Fatal("the killed run's tables are gone before any clean: nothing left to test")
	}
	t.Logf("left on the hosts by the killed run: %v", left)
	code, out, errs := cli(t, "clean", "--inventory", f.Inventory)
	if code != exitValid || !strings.Contains(out, "nft table") {
		t.Fatalf("clean: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if after := runTables(t, f); len(after) > 0 {
		t.Errorf("tables still on the hosts after clean: %v", after)
	}
	if code, out, _ := cli(t, "clean", "--inventory", f.Inventory); code != exitValid || strings.Contains(out, "nft table") {
		t.Errorf("second clean: exit %d, stdout %q; want nothing removed", code, out)
	}
}
