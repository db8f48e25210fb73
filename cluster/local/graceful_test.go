package local

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCleanStopCutByItsDeadlineSaysSo: a node that outlives its step's
// deadline after SIGTERM is SIGKILLed, and the error wraps the deadline,
// so that a step cut off by the run's own end is told from a broker that
// would not stop.
func TestCleanStopCutByItsDeadlineSaysSo(t *testing.T) {
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo ready; sleep 30")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil { // SIGTERM is ignored from here on
		t.Fatal(err)
	}
	n := &node{id: 7, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(n.done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = n.stopClean(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "before its step's deadline") {
		t.Fatalf("stopClean past its deadline: %v, want the deadline wrapped and named", err)
	}
	if n.running() {
		t.Fatal("the node outlived its SIGKILL")
	}
}
