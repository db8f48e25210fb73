package chaostest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/chaostest"
)

// A schedule the run could not play to its end is an error naming the
// faults that never ran: here the first crash waits StopGrace for code
// that ignores its ctx, past the run's end, and the two after it never
// start.
func TestScheduleCutShortIsAnError(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	o := small(t)
	o.StopGrace, o.Drain = 2*time.Second, 300*time.Millisecond
	o.Faults = []chaostest.Fault{chaostest.CrashService(100*time.Millisecond, 700*time.Millisecond, 350*time.Millisecond)}
	_, err := chaostest.Run(t.Context(), chaostest.AtMostOnce, func(context.Context, chaostest.Env) error {
		<-release
		return nil
	}, o)
	if err == nil || !strings.Contains(err.Error(), "never ran: fault 0 (crash-consumer): 2 of its 3 steps") {
		t.Errorf("err %v, want one naming the crashes that never ran", err)
	}
}

// A crash that finds no start of the code running is not counted as
// fired, and its op says why.
func TestCrashWithNoRunningStartIsNotFired(t *testing.T) {
	o := small(t)
	o.Keep, o.Drain = true, 300*time.Millisecond
	// start 0 runs until crashed at 200ms; every later start returns at
	// once, so the crash at 600ms finds none running
	o.Faults = []chaostest.Fault{chaostest.CrashService(200*time.Millisecond, 400*time.Millisecond, 400*time.Millisecond)}
	v, _ := chaostest.Run(t.Context(), chaostest.AtMostOnce, func(ctx context.Context, env chaostest.Env) error {
		if env.Start == 0 {
			<-ctx.Done()
		}
		return nil
	}, o)
	b, err := os.ReadFile(filepath.Join(v.Dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Stats struct {
			Faults []struct {
				Kind   string
				Fired  int
				Errors []string
			}
		}
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if f := res.Stats.Faults; len(f) != 1 || f[0].Fired != 1 || len(f[0].Errors) != 1 || !strings.Contains(f[0].Errors[0], "no running start") {
		t.Errorf("faults %+v, want the crash-consumer fired once, its second crash an error saying no start of the code was running", f)
	}
	h, err := os.ReadFile(filepath.Join(v.Dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var says []string
	for _, line := range strings.Split(string(h), "\n") {
		var op struct {
			F     string
			Value json.RawMessage
		}
		if json.Unmarshal([]byte(line), &op) == nil && op.F == "crash-consumer" {
			says = append(says, string(op.Value))
		}
	}
	if len(says) != 2 || strings.Contains(says[0], "no running start") || !strings.Contains(says[1], "no running start") {
		t.Errorf("the crash ops say %q, want the second to say no start of the code was running", says)
	}
}
