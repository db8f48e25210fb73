package chaostest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// slowStart is a fault whose start gives up on a deadline of its own.
type slowStart struct{}

func (slowStart) Name() string { return "slow" }
func (slowStart) Start(context.Context) error {
	return fmt.Errorf("waiting for the broker to go down: %w", context.DeadlineExceeded)
}
func (slowStart) Stop(context.Context) error { return nil }

// A fault whose start failed on a deadline of its own is a harness error,
// not the run's end, and the steps after it are named as never run.
func TestFaultStartDeadlineIsAnError(t *testing.T) {
	f := &tracked{Fault: slowStart{}, kind: "kill", steps: 2}
	sched := nemesis.Schedule{{At: 0, Duration: 10 * time.Millisecond, Fault: f}, {At: 20 * time.Millisecond, Duration: 10 * time.Millisecond, Fault: f}}
	nemErr := nemesis.Run(t.Context(), sched, client.NewMemRecorder())
	err := scheduleErr(nemErr, []*tracked{f})
	if err == nil || !strings.Contains(err.Error(), "waiting for the broker") || !strings.Contains(err.Error(), "never ran: fault 0 (kill): 1 of its 2 steps") {
		t.Errorf("err %v, want the start's error and the step that never ran", err)
	}
}
