package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/lazyfs"
)

// diskProvider is a provider with two nodes that never start a JVM, their
// data directories on lazyfs when lazy is set.
func diskProvider(t *testing.T, lazy bool) *Provider {
	t.Helper()
	if err := lazyfs.Available(); err != nil {
		t.Skip(err)
	}
	p := New(Options{Logf: t.Logf})
	p.id, p.dir = ownedRunID(t), t.TempDir()
	var nodes []*node
	for _, id := range []int32{1, 2} {
		n := &node{id: id, dir: filepath.Join(p.dir, "n"+string(rune('0'+id)))}
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	p.setNodes(nodes)
	if err := p.mountDisks(cluster.Spec{LazyDisks: lazy}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.unmountDisks(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestDisksAreTaggedLazyfsMountsThatLoseUnsyncedWrites(t *testing.T) {
	p := diskProvider(t, true)
	ctx := context.Background()
	left, err := Leftovers(ctx, p.id)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(p.nodes[0].dir, "data")
	if !slices.Contains(left, "mount "+data) {
		t.Fatalf("Leftovers(%s) = %v, want the mount of %s", p.id, left, data)
	}
	f, err := os.Create(filepath.Join(data, "00.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("acked-and-synced")
	f.Sync()
	f.WriteString("acked-only")
	f.Close()
	losses, err := p.PowerLoss(ctx, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	if len(losses) != 1 || losses[0].Node != 1 || losses[0].Bytes != int64(len("acked-only")) {
		t.Errorf("losses %+v, want node 1 losing the %d unsynced bytes", losses, len("acked-only"))
	}
	if b, _ := os.ReadFile(filepath.Join(data, "00.log")); string(b) != "acked-and-synced" {
		t.Errorf("after the power loss 00.log reads %q", b)
	}
}

func TestDiskFaultFailsWritesAndFindsTheBrokersReaction(t *testing.T) {
	p := diskProvider(t, true)
	ctx := context.Background()
	log := p.nodes[1].logPath()
	appendLine(t, log, "[2026] ERROR Shutdown broker because all log dirs in /old have failed (kafka.log.LogManager)")
	if err := p.FailDisk(ctx, 2, cluster.DiskENOSPC); err != nil {
		t.Fatal(err)
	}
	if r := p.DiskReaction(2); r != "" {
		t.Errorf("DiskReaction = %q before the broker reacted: lines older than the fault must not count", r)
	}
	err := os.WriteFile(filepath.Join(p.nodes[1].dir, "data", "x"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.ENOSPC) || p.DiskFailures(2) == 0 || p.DiskFailures(1) != 0 {
		t.Errorf("write on node 2's disk: %v with %d failures (node 1: %d), want ENOSPC counted on node 2 only",
			err, p.DiskFailures(2), p.DiskFailures(1))
	}
	appendLine(t, log, "[2026] INFO Started the log cleaner (kafka.log.LogCleaner)")
	appendLine(t, log, "[2026] ERROR Shutdown broker because all log dirs in /data have failed (kafka.log.LogManager)")
	if r := p.DiskReaction(2); !strings.Contains(r, "/data have failed") {
		t.Errorf("DiskReaction = %q, want the shutdown line", r)
	}
	if err := p.FailDisk(ctx, 2, "slow"); err == nil {
		t.Error("FailDisk(slow) accepted")
	}
}

func TestNoLazyDisksWithoutTheSpecAsking(t *testing.T) {
	p := diskProvider(t, false)
	if _, err := p.PowerLoss(context.Background(), []int32{1}); err == nil || !strings.Contains(err.Error(), "LazyDisks") {
		t.Errorf("PowerLoss without lazy disks: %v, want an error naming LazyDisks", err)
	}
	if ms, _ := lazyfs.Mounts(); slices.ContainsFunc(ms, func(m lazyfs.Mounted) bool { return m.Tag == p.id }) {
		t.Errorf("a run without LazyDisks mounted %v", ms)
	}
}
