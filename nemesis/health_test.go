package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/kafkachaos/kafkachaos/histories"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
)

// fakeHealth is a cluster whose health follows a script: healthy from the
// moment ok() says so. It counts its probes.
type fakeHealth struct {
	mu     sync.Mutex
	ok     func() bool
	probes int
}

func (h *fakeHealth) Healthy(context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probes++
	if h.ok() {
		return nil
	}
	return errors.New("t/0 has ISR [1] of replicas [1 2 3]")
}

func (h *fakeHealth) HealthChecked() string { return "fake: ISR whole" }

func (h *fakeHealth) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.probes
}

// opHealth decodes the health record of op i.
func opHealth(t *testing.T, rec *memRecorder, i int) histories.Health {
	t.Helper()
	var v struct{ Health *histories.Health }
	if err := json.Unmarshal(rec.ops[i].Value, &v); err != nil || v.Health == nil {
		t.Fatalf("op %d (%s) has no health record: %s (%v)", i, rec.ops[i].F, rec.ops[i].Value, err)
	}
	return *v.Health
}

// A cluster that stays unhealthy after a heal that worked did not recover
// by itself: no harness error, and the stop op says what stayed broken.
func TestClusterThatStaysUnhealthyAfterItsHealIsRecordedNotFailed(t *testing.T) {
	a := &fakeFault{name: "a"}
	h := &fakeHealth{ok: func() bool { return !a.on }}
	stuck := &fakeHealth{ok: func() bool { return false }}
	rec := &memRecorder{}
	b := &fakeFault{name: "b"}
	err := Run(context.Background(), Schedule{{Duration: 10 * time.Millisecond, Fault: a},
		{At: 400 * time.Millisecond, Duration: 10 * time.Millisecond, Fault: b}}, rec,
		WithHealth(stuckAfterStop{h, stuck, a}, 300*time.Millisecond))
	if err != nil {
		t.Fatalf("err = %v, want none: the heal worked, the cluster did not recover", err)
	}
	if before := opHealth(t, rec, 0); !before.Healthy || before.When != "before" {
		t.Errorf("start op health %+v, want healthy before", before)
	}
	after, ok := histories.NotRecoveredOf(&rec.ops[1])
	if !ok || !strings.Contains(after.Unhealthy, "ISR [1]") || rec.ops[1].Error != "" {
		t.Errorf("stop op %s (error %q): want not recovered, with the reason and no error", rec.ops[1].Value, rec.ops[1].Error)
	}
	if len(rec.ops) != 4 || b.stops != 1 {
		t.Errorf("%d ops, b stopped %v: the schedule did not go on after the cluster failed to recover", len(rec.ops), b.stops == 1)
	}
}

// stuckAfterStop answers as h until fault a has stopped once, then as
// stuck: a cluster that was healthy before the fault and never recovers.
type stuckAfterStop struct {
	h, stuck *fakeHealth
	a        *fakeFault
}

func (s stuckAfterStop) Healthy(ctx context.Context) error {
	if s.a.stops > 0 {
		return s.stuck.Healthy(ctx)
	}
	return s.h.Healthy(ctx)
}
func (s stuckAfterStop) HealthChecked() string { return s.h.HealthChecked() }

// healthyAfterStop is a cluster healthy until a first stops, then
// unhealthy for d.
func healthyAfterStop(a *fakeFault, d time.Duration) *fakeHealth {
	var mu sync.Mutex
	var stopped time.Time
	return &fakeHealth{ok: func() bool {
		mu.Lock()
		defer mu.Unlock()
		if a.stops > 0 && stopped.IsZero() {
			stopped = time.Now()
		}
		return a.stops == 0 || time.Since(stopped) > d
	}}
}

func TestHealWaitsUntilTheClusterIsHealthy(t *testing.T) {
	a := &fakeFault{name: "a"}
	h := healthyAfterStop(a, 600*time.Millisecond)
	rec := &memRecorder{}
	began := time.Now()
	if err := Run(context.Background(), Schedule{{Duration: 10 * time.Millisecond, Fault: a}}, rec,
		WithHealth(h, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < 600*time.Millisecond {
		t.Fatalf("Run returned after %v, before the cluster was healthy again", d)
	}
	after := opHealth(t, rec, 1)
	waited, err := time.ParseDuration(after.Waited)
	if !after.Healthy || err != nil || waited < 500*time.Millisecond || after.Checked != "fake: ISR whole" {
		t.Fatalf("stop op health %+v, want healthy after a wait of >= 500ms", after)
	}
}

func TestFaultStartedOnAnUnhealthyClusterSaysSo(t *testing.T) {
	a := &fakeFault{name: "a"}
	h := &fakeHealth{ok: func() bool { return a.starts > 0 }}
	rec := &memRecorder{}
	if err := Run(context.Background(), Schedule{{Duration: 10 * time.Millisecond, Fault: a}}, rec,
		WithHealth(h, 100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if a.starts != 1 {
		t.Fatalf("the fault did not start on an unhealthy cluster: starts = %d", a.starts)
	}
	before := opHealth(t, rec, 0)
	if before.Healthy || !strings.Contains(before.Unhealthy, "ISR [1]") {
		t.Fatalf("start op health %+v, want unhealthy before, with the reason", before)
	}
}

func TestHealthIsCheckedWhenTheLastOverlappingFaultStops(t *testing.T) {
	a, b := &fakeFault{name: "a"}, &fakeFault{name: "b"}
	// Unhealthy while either fault holds: a check then would wait for
	// what the other breaks.
	h := &fakeHealth{ok: func() bool { return !a.on && !b.on }}
	rec := &memRecorder{}
	err := Run(context.Background(), Schedule{{Duration: 20 * time.Millisecond, Fault: a},
		{At: 10 * time.Millisecond, Duration: 30 * time.Millisecond, Fault: b}}, rec, WithHealth(h, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.fs(); strings.Join(got, " ") != "a-start b-start a-stop b-stop" {
		t.Fatalf("ops %v", got)
	}
	if hb := opHealth(t, rec, 1); !hb.Deferred || len(hb.Active) != 1 || hb.Active[0] != "a" {
		t.Errorf("b's start, with a holding: %+v, want deferred naming a", hb)
	}
	if ha := opHealth(t, rec, 2); !ha.Deferred || ha.Active[0] != "b" {
		t.Errorf("a's stop, with b holding: %+v, want deferred naming b", ha)
	}
	if hb := opHealth(t, rec, 3); !hb.Healthy {
		t.Errorf("b's stop, the last: %+v, want checked and healthy", hb)
	}
	if n := h.count(); n != 2 {
		t.Errorf("%d health probes, want 2 (before a, after b)", n)
	}
}

func TestHealthCheckedAfterACancelledRun(t *testing.T) {
	a := &fakeFault{name: "a"}
	h := &fakeHealth{ok: func() bool { return !a.on }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rec := &memRecorder{}
	err := Run(ctx, Schedule{{Duration: time.Hour, Fault: a}}, rec, WithHealth(h, time.Second))
	if errors.Is(err, ErrHeal) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline alone", err)
	}
	if after := opHealth(t, rec, 1); !after.Healthy {
		t.Fatalf("heal at the end of a cut-short run: %+v, want checked healthy", after)
	}
}

// pauser is a NodePauser whose pause may not take effect: its hook, like
// cluster/local's, checks the process state and returns an error when the
// process never stopped.
type pauser struct {
	*fakeBrokers
	neverStops bool
}

func (p *pauser) Pause(ctx context.Context, n int32) error {
	if err := p.fakeBrokers.Pause(ctx, n); err != nil {
		return err
	}
	if p.neverStops {
		return errors.New("process 4242: 0 threads stopped, 97 not, after 5s (want all stopped)")
	}
	return nil
}

func TestPauseWhoseProcessNeverStopsIsNotStarted(t *testing.T) {
	p := &pauser{fakeBrokers: newFakeBrokers(), neverStops: true}
	fault, err := Real(Targeting{Provider: p, Topic: "t", IntN: seq}, RealSpec{Kind: RealPause, Target: TargetLeader})
	if err != nil {
		t.Fatal(err)
	}
	rec := &memRecorder{}
	err = Run(context.Background(), Schedule{{Duration: time.Hour, Fault: fault}}, rec)
	if err == nil || errors.Is(err, ErrHeal) || !strings.Contains(err.Error(), "threads stopped") {
		t.Fatalf("err = %v, want the failed start (not a heal failure)", err)
	}
	if rec.ops[0].F != "pause" || rec.ops[0].Error == "" || strings.Contains(string(rec.ops[0].Value), `"verified"`) {
		t.Fatalf("pause op %+v: want its error and no claim of a verified effect", rec.ops[0])
	}
	if calls := p.Calls(); strings.Join(calls, ",") != "pause 2,resume 2" {
		t.Fatalf("calls %v: the half-applied pause must still be resumed", calls)
	}
}

// stuckMover is a LeaderMover whose moves do not change the leader.
type stuckMover struct{ *fakeBrokers }

func (stuckMover) MoveLeader(context.Context, string, int32, int32) error { return nil }
func (stuckMover) ShuffleLeaders(context.Context) error                   { return nil }

func TestMoveLeaderReReadsTheLeader(t *testing.T) {
	f := newFakeBrokers()
	m := MoveLeader(f, stuckMover{f}, "t", 0)
	if err := m.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "the leader is 2") {
		t.Fatalf("a move that left the leader in place: %v, want an error naming it", err)
	}
	d := m.(Detailer).Detail().(map[string]any)
	if d["leader-after"] != int32(2) || d["verified"] != nil {
		t.Fatalf("detail %v: want leader-after 2 and no verified", d)
	}
}

func TestRequestFaultSaysInstalledNotFired(t *testing.T) {
	e := embedded.New()
	if err := e.Start(context.Background(), cluster.Spec{Brokers: 1}); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(context.Background())
	f := LostAck(e, cluster.RequestFault{Keys: []int16{0}}, 7)
	if err := f.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := f.(Detailer).Detail().(map[string]any)
	if d["installed"] != true || d["hits"] != 0 || !strings.Contains(d["verified"].(string), "installed") {
		t.Fatalf("detail %v: want installed, 0 hits, and a verified text that says installed", d)
	}
	f.Stop(context.Background())
	if d := f.(Detailer).Detail().(map[string]any); d["installed"] != false {
		t.Fatalf("detail after stop %v: want installed false", d)
	}
}

// slowHealer is a fault whose heal needs budget to leave the cluster
// healthy (HealBudgeter).
type slowHealer struct {
	*fakeFault
	budget time.Duration
}

func (s slowHealer) HealBudget() time.Duration { return s.budget }

// A fault whose heal says it needs long is given that long for the cluster
// to be healthy again; one that says nothing is held to the bound.
func TestHealBudgetExtendsTheWaitForHealth(t *testing.T) {
	for _, budget := range []time.Duration{0, 3 * time.Second} {
		a := &fakeFault{name: "a"}
		h := healthyAfterStop(a, time.Second)
		var f Fault = a
		if budget > 0 {
			f = slowHealer{a, budget}
		}
		rec := &memRecorder{}
		err := Run(context.Background(), Schedule{{Duration: 10 * time.Millisecond, Fault: f}}, rec,
			WithHealth(h, 300*time.Millisecond))
		if budget > 0 && err != nil {
			t.Errorf("with a heal budget of %v: %v", budget, err)
		}
		rh, ok := histories.NotRecoveredOf(&rec.ops[1])
		waited, _ := time.ParseDuration(rh.Waited)
		if budget == 0 && (err != nil || !ok || waited < 300*time.Millisecond || waited > time.Second) {
			t.Errorf("without a heal budget: err = %v, stop op %s; want it not recovered after 300ms", err, rec.ops[1].Value)
		}
	}
}
