package local

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// A pause counts only when /proc shows the process stopped: a process
// that got no SIGSTOP (or ignored it, as nothing can, or was thawed by
// someone else) fails the check within its bound; one that did passes,
// and SIGCONT is seen the same way.
func TestWaitStoppedReadsTheProcessState(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ctx := context.Background()
	pid := cmd.Process.Pid
	began := time.Now()
	err := procstat.WaitStopped(ctx, pid, true, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "0 threads stopped") {
		t.Fatalf("a running process passed as stopped: %v", err)
	}
	if d := time.Since(began); d > 2*time.Second {
		t.Fatalf("the check took %v, past its bound", d)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := procstat.WaitStopped(ctx, pid, true, time.Second); err != nil {
		t.Fatalf("a SIGSTOPped process: %v", err)
	}
	if err := procstat.WaitStopped(ctx, pid, false, 200*time.Millisecond); err == nil {
		t.Fatal("a stopped process passed as running")
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := procstat.WaitStopped(ctx, pid, false, time.Second); err != nil {
		t.Fatalf("a SIGCONTed process: %v", err)
	}
}

func TestWaitStoppedNamesAGoneProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := procstat.WaitStopped(context.Background(), cmd.Process.Pid, true, time.Second); err == nil ||
		!strings.Contains(err.Error(), "no threads") {
		t.Fatalf("a reaped process: %v", err)
	}
}
