package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

func TestStepsPlaceFaultsOnTheTimeline(t *testing.T) {
	ms := func(n int) generators.Duration { return generators.Duration(time.Duration(n) * time.Millisecond) }
	m := &meteredFault{}
	win := steps(generators.Fault{Kind: generators.KindLostAck, Start: ms(100), Duration: ms(500)}, m)
	if len(win) != 1 || win[0].At != 100*time.Millisecond || win[0].Duration != 500*time.Millisecond {
		t.Fatalf("window fault: %+v, want one step at 100ms for 500ms", win)
	}
	rep := steps(generators.Fault{Kind: generators.KindCrashConsumer, Start: ms(100), Duration: ms(500),
		Params: generators.FaultParams{Every: ms(200)}}, m)
	var at []time.Duration
	for _, st := range rep {
		if st.Duration != 0 {
			t.Fatalf("instant step with duration %v", st.Duration)
		}
		at = append(at, st.At)
	}
	want := []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 500 * time.Millisecond}
	if len(at) != len(want) || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
		t.Fatalf("repeated fault fires at %v, want %v", at, want)
	}
	once := steps(generators.Fault{Kind: generators.KindChurn, Start: ms(100), Duration: ms(500)}, m)
	if len(once) != 1 {
		t.Fatalf("instant fault without every fires %d times, want once", len(once))
	}
}

type stubFault struct{ err error }

func (f stubFault) Name() string                { return "stub" }
func (f stubFault) Start(context.Context) error { return f.err }
func (f stubFault) Stop(context.Context) error  { return nil }

func TestMeteredFaultCountsAndTolerates(t *testing.T) {
	var active atomic.Int64
	ok := &meteredFault{Fault: stubFault{}, kind: "x", active: &active}
	if err := ok.Start(context.Background()); err != nil || active.Load() != 1 {
		t.Fatalf("start: %v, active %d", err, active.Load())
	}
	ok.Stop(context.Background())
	if st := ok.stat(); st.Fired != 1 || active.Load() != 0 {
		t.Fatalf("stat %+v, active %d", st, active.Load())
	}
	idle := &meteredFault{Fault: stubFault{errNothingToCrash}, kind: "y", active: &active}
	if err := idle.Start(context.Background()); err != nil {
		t.Fatalf("a client fault with nothing to act on stopped the schedule: %v", err)
	}
	if st := idle.stat(); st.Fired != 0 || len(st.Errors) != 1 {
		t.Fatalf("idle stat %+v, want 0 fired and the error noted", st)
	}
	broken := &meteredFault{Fault: stubFault{errors.New("boom")}, kind: "z", active: &active}
	if err := broken.Start(context.Background()); err == nil {
		t.Fatal("a failing cluster fault was swallowed")
	}
}
