package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// fakeDisks adds disks to fakeBrokers: a power loss takes its nodes down
// (unless stuckUp), a disk fault fails failures operations and the broker
// reacts with reaction.
type fakeDisks struct {
	*fakeBrokers
	stuckUp  bool
	failures int64
	reaction string
}

func (f *fakeDisks) Replicas(context.Context, string, int32) ([]int32, error) {
	return []int32{2, 3, 1}, f.log("replicas")
}

func (f *fakeDisks) PowerLoss(_ context.Context, nodes []int32) ([]cluster.DiskLoss, error) {
	var out []cluster.DiskLoss
	for _, n := range nodes {
		f.setDown(n, !f.stuckUp)
		out = append(out, cluster.DiskLoss{Node: n, Bytes: 100})
	}
	return out, f.log("power-loss %v", nodes)
}

func (f *fakeDisks) FailDisk(_ context.Context, n int32, mode string) error {
	return f.log("fail-disk %d %s", n, mode)
}
func (f *fakeDisks) DiskFailures(int32) int64  { return f.failures }
func (f *fakeDisks) DiskReaction(int32) string { return f.reaction }
func (f *fakeDisks) HealDisk(_ context.Context, n int32) (bool, error) {
	return f.reaction != "", f.log("heal-disk %d", n)
}

func TestPowerLossOfReplicasKillsThemAllAndRestartsThem(t *testing.T) {
	fd := &fakeDisks{fakeBrokers: newFakeBrokers()}
	tg := Targeting{Provider: fd, Topic: "t"}
	f := PowerLoss(fd, fd, tg, TargetReplicas)
	ctx := context.Background()
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	d := f.(Detailer).Detail().(map[string]any)
	if !slices.Equal(d["nodes"].([]int32), []int32{2, 3, 1}) || d["discarded-bytes"] != int64(300) {
		t.Errorf("detail %v, want nodes [2 3 1] and 300 bytes discarded", d)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"replicas", "power-loss [2 3 1]", "restart 1", "restart 2", "restart 3"}
	got := fd.Calls()
	slices.Sort(got[2:]) // restarted together
	if !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if ev := f.(interface{ Evidence() []string }).Evidence(); len(ev) != 2 {
		t.Errorf("evidence %v, want the loss and the restart", ev)
	}
}

func TestPowerLossThatLeavesANodeUpHasNotFired(t *testing.T) {
	fd := &fakeDisks{fakeBrokers: newFakeBrokers(), stuckUp: true}
	f := PowerLoss(fd, fd, Targeting{Provider: fd, Topic: "t"}, TargetLeader)
	err := f.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "still up") {
		t.Errorf("Start: %v, want the node still up named", err)
	}
	if err := f.Stop(context.Background()); err != nil || !slices.Contains(fd.Calls(), "restart 2") {
		t.Errorf("Stop after a failed start: %v, calls %v: the node must be restarted all the same", err, fd.Calls())
	}
}

func TestDiskFaultVerifiedByTheBrokersReactionOrFailedOps(t *testing.T) {
	cases := []struct {
		failures int64
		reaction string
		want     string // in verified, or the error
	}{
		{3, "ERROR Shutdown broker because all log dirs in /d have failed", "the broker's log shows"},
		{3, "", "3 disk operations failed; no reaction"},
		{0, "", "no disk operation failed"},
	}
	for _, c := range cases {
		fd := &fakeDisks{fakeBrokers: newFakeBrokers(), failures: c.failures, reaction: c.reaction}
		f := DiskFault(fd, Targeting{Provider: fd, Topic: "t"}, TargetLeader, cluster.DiskEIO)
		f.(*diskFault).wait = 50 * time.Millisecond
		err := f.Start(context.Background())
		got := fmt.Sprint(err)
		if err == nil {
			got = fmt.Sprint(f.(Detailer).Detail().(map[string]any)["verified"])
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("failures %d, reaction %q: %s, want %q", c.failures, c.reaction, got, c.want)
		}
		if err := f.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if want := []string{"fail-disk 2 eio", "heal-disk 2"}; !slices.Equal(fd.Calls(), want) {
			t.Errorf("calls %v, want %v", fd.Calls(), want)
		}
		if restarted := f.(Detailer).Detail().(map[string]any)["restarted"]; restarted != (c.reaction != "") {
			t.Errorf("restarted %v with reaction %q", restarted, c.reaction)
		}
	}
}

// TestDiskFaultCutByItsDeadlineSaysSo: a disk fault whose step's deadline
// ends before anything failed wraps the deadline, so that a step cut off
// by the run's own end is told from a disk fault that had no effect.
func TestDiskFaultCutByItsDeadlineSaysSo(t *testing.T) {
	fd := &fakeDisks{fakeBrokers: newFakeBrokers()}
	f := DiskFault(fd, Targeting{Provider: fd, Topic: "t"}, TargetLeader, cluster.DiskReadEIO)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := f.Start(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "before its step's deadline") {
		t.Fatalf("a disk fault cut off by its deadline: %v, want the deadline wrapped and named", err)
	}
	if err := f.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The disk faults' ops pair as the report's timeline pairs a fault "x"
// with its heal "x-heal", so their windows are drawn.
func TestDiskFaultEventsPairAsWindows(t *testing.T) {
	fd := &fakeDisks{fakeBrokers: newFakeBrokers()}
	for _, f := range []Fault{PowerLoss(fd, fd, Targeting{Provider: fd}, TargetAll), DiskFault(fd, Targeting{Provider: fd}, TargetOne, cluster.DiskEIO)} {
		start, stop := events(f)
		if start != f.Name() || stop != f.Name()+"-heal" {
			t.Errorf("%s: events %s, %s; want %s, %s-heal", f.Name(), start, stop, f.Name(), f.Name())
		}
	}
}
