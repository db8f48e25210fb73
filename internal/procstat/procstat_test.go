package procstat

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestStartTimeOfThisProcessAndOfNone(t *testing.T) {
	if StartTime(os.Getpid()) == "" {
		t.Fatal("no start time for this process")
	}
	if got := StartTime(1 << 30); got != "" {
		t.Fatalf("start time %q for a pid that cannot exist", got)
	}
}

func TestWaitStoppedSeesSIGSTOPAndSIGCONT(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep binary: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	if err := WaitStopped(context.Background(), pid, true, 50*time.Millisecond); err == nil {
		t.Fatal("a running process counted as stopped")
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	if err := WaitStopped(context.Background(), pid, true, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	if err := WaitStopped(context.Background(), pid, false, 2*time.Second); err != nil {
		t.Fatal(err)
	}
}
