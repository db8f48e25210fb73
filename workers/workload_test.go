package workers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// TestStopIsBounded: a worker that never returns does
// not hold the run: Stop gives up on it after its bound and names it in a
// harness error.
func TestStopIsBounded(t *testing.T) {
	w := &Workload{stopBound: 200 * time.Millisecond}
	release := make(chan struct{})
	defer close(release)
	w.spawn("copier 0", func() {
		// Let go after 5s anyway: an unbounded stop fails the test
		// rather than hanging it.
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	})
	w.spawn("producer 0", func() {})
	start := time.Now()
	w.Stop(context.Background())
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("stop took %v with a bound of %v", took, w.stopBound)
	}
	err := w.Err()
	if err == nil || !strings.Contains(err.Error(), "copier 0 did not return") || strings.Contains(err.Error(), "producer 0") {
		t.Fatalf("harness error %v, want copier 0 named, and only it", err)
	}
}

// TestSlotHoldsTheLatestClient: a slot starts empty and hands out whatever
// was put in it last, as a fault reading it mid-replacement would see.
func TestSlotHoldsTheLatestClient(t *testing.T) {
	var s Slot[*int]
	if s.Current() != nil {
		t.Fatal("a new slot holds a client")
	}
	a, b := 1, 2
	s.Put(&a)
	s.Put(&b)
	if got := s.Current(); got != &b {
		t.Fatalf("slot holds %v, want the last client put in", got)
	}
}

// TestCrashOfAnEmptySlotFindsNothing: a fault that reaches a slot before
// its first client opened, or while one is replaced, is told so rather than
// acting on nothing.
func TestCrashOfAnEmptySlotFindsNothing(t *testing.T) {
	if p, err := (&ProducerSlot{}).Crash(); p != nil || err != ErrNothingToCrash {
		t.Errorf("producer slot: %v, %v", p, err)
	}
	if c, err := (&ConsumerSlot{}).Crash(client.CrashAnywhere); c != nil || err != ErrNothingToCrash {
		t.Errorf("consumer slot: %v, %v", c, err)
	}
	if cp, err := (&CopierSlot{}).Crash(); cp != nil || err != ErrNothingToCrash {
		t.Errorf("copier slot: %v, %v", cp, err)
	}
}

// TestNewRefusesABadKeyMap: a keys.map key that is not a number is refused
// when the workload is made, naming it, before any client opens.
func TestNewRefusesABadKeyMap(t *testing.T) {
	s := copyScenario()
	s.Keys.Map["two"] = s.Keys.Map["2"]
	_, err := New(s, Options{Bootstrap: "127.0.0.1:1", Recorder: client.NewMemRecorder()})
	if err == nil || !strings.Contains(err.Error(), `keys.map: key "two"`) {
		t.Fatalf("New: %v, want the bad key named", err)
	}
}
