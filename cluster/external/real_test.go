package external

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/external/externaltest"
)

// answers reports whether the broker at addr answers a metadata request
// sent to it alone within a few seconds.
func answers(addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	_, err = req.RequestWith(ctx, cl)
	return err
}

// tablesIn lists the nft tables of namespace ns, read on this machine, not
// over SSH.
func tablesIn(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", ns, "nft", "list", "tables").CombinedOutput()
	if err != nil {
		t.Fatalf("nft list tables in %s: %v: %s", ns, err, out)
	}
	return string(out)
}

// reaches reports whether namespace ns can open a TCP connection to addr.
func reaches(ns, addr string) bool {
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("ip", "netns", "exec", ns, "timeout", "3", "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%s", host, port))
	return cmd.Run() == nil
}

// TestExternalFaultsOverSSH drives a real cluster only through SSH, as the
// external provider drives a user's: each fault's effect is then checked
// from outside it (the broker's answers, /proc and nft on this machine).
func TestExternalFaultsOverSSH(t *testing.T) {
	externaltest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := externaltest.Start(ctx, t)
	p, err := Open(f.Inventory, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx, cluster.Spec{RunID: "external-faults", Topics: []cluster.TopicSpec{{Name: "ext", Partitions: 3, MinInsyncReplicas: 2}}}); err != nil {
		t.Fatalf("external Start: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			p.Stop(context.Background())
		}
	})
	for _, c := range []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition} {
		if !cluster.Supports(p, c) {
			t.Fatalf("capabilities %v lack %s: the hosts have root and nft", p.Capabilities(), c)
		}
	}
	const victim = 2
	addr := p.Nodes()[1].Addr

	t.Run("kill and restart", func(t *testing.T) {
		if err := p.Kill(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err == nil {
			t.Fatal("killed broker still answers")
		}
		if s := f.JVMState(victim); s != "no process" && !strings.HasPrefix(s, "Z") {
			t.Fatalf("killed broker's JVM is %s", s)
		}
		if err := p.Restart(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err != nil {
			t.Fatalf("restarted broker does not answer: %v", err)
		}
	})
	t.Run("clean stop and start", func(t *testing.T) {
		if err := p.StopNode(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err == nil {
			t.Fatal("stopped broker still answers")
		}
		if s := f.JVMState(victim); s != "no process" && !strings.HasPrefix(s, "Z") {
			t.Fatalf("stopped broker's JVM is %s", s)
		}
		if err := p.StartNode(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err != nil {
			t.Fatalf("started broker does not answer: %v", err)
		}
	})
	t.Run("pause and resume", func(t *testing.T) {
		if err := p.Pause(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if s := f.JVMState(victim); !strings.HasPrefix(s, "T") {
			t.Fatalf("paused broker's JVM is %s, want T (stopped)", s)
		}
		if err := answers(addr); err == nil {
			t.Fatal("paused broker answers")
		}
		if err := p.Resume(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if err := answers(addr); err != nil {
			t.Fatalf("resumed broker does not answer: %v", err)
		}
	})
	t.Run("partition and heal", func(t *testing.T) {
		table := "table inet " + TableName(p.RunID())
		peer := p.Nodes()[0].Addr
		if !reaches(f.NS[victim], peer) {
			t.Fatalf("node %d cannot reach %s before the partition", victim, peer)
		}
		if err := p.Partition(ctx, [][]int32{{victim}, {1, 3}}); err != nil {
			t.Fatal(err)
		}
		for id, ns := range f.NS {
			if !strings.Contains(tablesIn(t, ns), table) {
				t.Fatalf("node %d's host has no %s after the partition", id, table)
			}
		}
		if reaches(f.NS[victim], peer) {
			t.Fatalf("node %d still reaches %s across the partition", victim, peer)
		}
		if err := p.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		for id, ns := range f.NS {
			if strings.Contains(tablesIn(t, ns), table) {
				t.Fatalf("node %d's host still has %s after the heal", id, table)
			}
		}
		if !reaches(f.NS[victim], peer) {
			t.Fatalf("node %d cannot reach %s after the heal", victim, peer)
		}
	})
	t.Run("clean after a crashed harness", func(t *testing.T) {
		crashed, err := Open(f.Inventory, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if err := crashed.Start(ctx, cluster.Spec{RunID: "external-crashed"}); err != nil {
			t.Fatal(err)
		}
		if err := crashed.CutLinks(ctx, [][2]int32{{1, victim}}); err != nil {
			t.Fatal(err)
		}
		if err := crashed.Pause(ctx, 3); err != nil {
			t.Fatal(err)
		}
		table := "table inet " + TableName(crashed.RunID())
		// the harness is gone: its connections close, its provider never stops
		for _, h := range crashed.all {
			h.conn.Close()
		}
		inv, err := Load(f.Inventory)
		if err != nil {
			t.Fatal(err)
		}
		removed, err := Clean(ctx, inv, crashed.RunID())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("clean removed %v", removed)
		if len(removed) != 3 {
			t.Errorf("clean removed %d leftovers, want 3 (two tables, one SIGSTOP): %v", len(removed), removed)
		}
		for id, ns := range f.NS {
			if strings.Contains(tablesIn(t, ns), table) {
				t.Errorf("node %d's host still has %s after clean", id, table)
			}
		}
		if s := f.JVMState(3); strings.HasPrefix(s, "T") {
			t.Errorf("node 3's JVM is still %s after clean", s)
		}
		if again, err := Clean(ctx, inv, crashed.RunID()); err != nil || len(again) > 0 {
			t.Errorf("second clean removed %v (error %v), want nothing", again, err)
		}
		if err := answers(p.Nodes()[2].Addr); err != nil {
			t.Errorf("node 3 does not answer after clean: %v", err)
		}
	})
	t.Run("the next run creates the same topics", func(t *testing.T) {
		stopped = true
		if err := p.Stop(ctx); err != nil {
			t.Fatalf("external Stop: %v", err)
		}
		next, err := Open(f.Inventory, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		defer next.Stop(context.Background())
		if err := next.Start(ctx, cluster.Spec{RunID: "external-next", Topics: []cluster.TopicSpec{{Name: "ext", Partitions: 3, MinInsyncReplicas: 2}}}); err != nil {
			t.Fatalf("a run after one that created its topic: %v", err)
		}
	})
}
