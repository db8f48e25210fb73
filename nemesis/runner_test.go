package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

type memRecorder struct {
	mu  sync.Mutex
	ops []histories.Op
}

func (m *memRecorder) Record(op *histories.Op) *histories.Op {
	m.mu.Lock()
	defer m.mu.Unlock()
	op.Index = int64(len(m.ops))
	m.ops = append(m.ops, *op)
	return op
}

func (m *memRecorder) fs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, o := range m.ops {
		if o.Process != histories.NemesisProcess {
			panic("nemesis op with a client process")
		}
		out = append(out, o.F)
	}
	return out
}

// fakeFault counts starts and stops; it can fail or panic on start and
// fail on stop.
type fakeFault struct {
	name          string
	starts, stops int
	startErr      error
	stopErr       error
	panicOnStart  bool
	on            bool
	healCtxErr    error // ctx.Err() as Stop saw it
}

func (f *fakeFault) Name() string { return f.name }
func (f *fakeFault) Start(context.Context) error {
	f.starts++
	f.on = true
	if f.panicOnStart {
		panic("boom")
	}
	return f.startErr
}
func (f *fakeFault) Stop(ctx context.Context) error {
	f.stops++
	f.on = false
	f.healCtxErr = ctx.Err()
	return f.stopErr
}

func TestRunFollowsTheSchedule(t *testing.T) {
	a, b := &fakeFault{name: "a"}, &fakeFault{name: "b"}
	rec := &memRecorder{}
	s := Schedule{{At: 0, Duration: 30 * time.Millisecond, Fault: a}, {At: 10 * time.Millisecond, Duration: 40 * time.Millisecond, Fault: b}}
	start := time.Now()
	if err := Run(context.Background(), s, rec); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("schedule of 50ms ran in %v", d)
	}
	want := []string{"a-start", "b-start", "a-stop", "b-stop"}
	if got := rec.fs(); len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("ops %v, want %v", got, want)
	}
	if a.on || b.on || a.stops != 1 {
		t.Fatalf("faults not healed once: %+v %+v", a, b)
	}
}

func TestRunHealsOnCancel(t *testing.T) {
	a := &fakeFault{name: "a"}
	rec := &memRecorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := Run(ctx, Schedule{{At: 0, Duration: time.Hour, Fault: a}}, rec)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if a.on || a.stops != 1 {
		t.Fatalf("fault not healed on cancel: %+v", a)
	}
	if a.healCtxErr != nil {
		t.Fatalf("the heal got the run's dead context (%v): a restart would be cut short", a.healCtxErr)
	}
	if got := rec.fs(); len(got) != 2 || got[1] != "a-stop" {
		t.Fatalf("ops %v", got)
	}
}

func TestRunHealsOnStartError(t *testing.T) {
	a := &fakeFault{name: "a"}
	b := &fakeFault{name: "b", startErr: errors.New("half applied")}
	err := Run(context.Background(), Schedule{{At: 0, Duration: time.Hour, Fault: a}, {At: time.Millisecond, Duration: time.Hour, Fault: b}}, &memRecorder{})
	if err == nil {
		t.Fatal("start error not returned")
	}
	if a.on || b.on {
		t.Fatalf("not healed after a start error: a=%+v b=%+v", a, b)
	}
}

func TestRunHealsThenRepanics(t *testing.T) {
	a := &fakeFault{name: "a"}
	b := &fakeFault{name: "b", panicOnStart: true}
	defer func() {
		if recover() == nil {
			t.Fatal("panic swallowed")
		}
		if a.on || b.on {
			t.Fatalf("not healed before re-panicking: a=%+v b=%+v", a, b)
		}
	}()
	Run(context.Background(), Schedule{{At: 0, Duration: time.Hour, Fault: a}, {At: 0, Duration: time.Hour, Fault: b}}, &memRecorder{})
}

func TestScheduleValidate(t *testing.T) {
	for i, s := range []Schedule{{{Fault: nil}}, {{At: -1, Fault: &fakeFault{}}}, {{Duration: -1, Fault: &fakeFault{}}}} {
		if err := Run(context.Background(), s, &memRecorder{}); err == nil {
			t.Errorf("schedule %d ran", i)
		}
	}
}

// slowHeal takes a while to heal, like a broker restart.
type slowHeal struct{ fakeFault }

func (f *slowHeal) Stop(ctx context.Context) error {
	time.Sleep(50 * time.Millisecond)
	return f.fakeFault.Stop(ctx)
}

func TestScheduledHealOutlivesTheRunDeadline(t *testing.T) {
	f := &slowHeal{fakeFault{name: "restart-slowly"}}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	Run(ctx, Schedule{{At: 0, Duration: 20 * time.Millisecond, Fault: f}}, &memRecorder{})
	if f.stops != 1 || f.healCtxErr != nil {
		t.Fatalf("heal cut short by the run's deadline: stops %d, ctx err %v", f.stops, f.healCtxErr)
	}
}

// wantHealErr asserts that err reports fault name's failed heal and,
// if also is set, still carries it.
func wantHealErr(t *testing.T, err error, name string, also error) {
	t.Helper()
	if !errors.Is(err, ErrHeal) {
		t.Fatalf("err = %v, want ErrHeal", err)
	}
	if !strings.Contains(err.Error(), "heal failed: "+name+": restart refused") {
		t.Fatalf("err = %q does not name fault %s and its cause", err, name)
	}
	if also != nil && !errors.Is(err, also) {
		t.Fatalf("err = %v lost %v", err, also)
	}
}

func TestRunReportsAFailedHealAfterTheDeadline(t *testing.T) {
	a := &fakeFault{name: "a", stopErr: errors.New("restart refused")}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := Run(ctx, Schedule{{At: 0, Duration: time.Hour, Fault: a}}, &memRecorder{})
	wantHealErr(t, err, "a", context.DeadlineExceeded)
}

func TestRunReportsAFailedScheduledHeal(t *testing.T) {
	a := &fakeFault{name: "a", stopErr: errors.New("restart refused")}
	b := &fakeFault{name: "b"}
	rec := &memRecorder{}
	err := Run(context.Background(), Schedule{{At: 0, Duration: 10 * time.Millisecond, Fault: a},
		{At: 0, Duration: time.Hour, Fault: b}}, rec)
	wantHealErr(t, err, "a", nil)
	if b.on {
		t.Fatal("the schedule's other fault was left in place after a failed heal")
	}
	ops := rec.ops
	if ops[2].F != "a-stop" || ops[2].Error != "restart refused" {
		t.Fatalf("the failed heal is not in the history: %+v", ops[2])
	}
}

func TestRunReportsEveryFailedHealAtTheEnd(t *testing.T) {
	a := &fakeFault{name: "a", stopErr: errors.New("restart refused")}
	b := &fakeFault{name: "b", stopErr: errors.New("restart refused")}
	c := &fakeFault{name: "c", startErr: errors.New("half applied")}
	err := Run(context.Background(), Schedule{{At: 0, Duration: time.Hour, Fault: a},
		{At: 0, Duration: time.Hour, Fault: b}, {At: time.Millisecond, Duration: time.Hour, Fault: c}}, &memRecorder{})
	wantHealErr(t, err, "a", nil)
	wantHealErr(t, err, "b", nil)
	if !strings.Contains(err.Error(), "start c: half applied") {
		t.Fatalf("err = %q lost the start error that ended the schedule", err)
	}
}

func TestRunHealsThenRepanicsWhenAHealFails(t *testing.T) {
	a := &fakeFault{name: "a", stopErr: errors.New("restart refused")}
	b := &fakeFault{name: "b", panicOnStart: true}
	rec := &memRecorder{}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want the fault's panic", p)
		}
		if a.stops != 1 || b.stops != 1 {
			t.Fatalf("not healed before re-panicking: a=%+v b=%+v", a, b)
		}
	}()
	Run(context.Background(), Schedule{{At: 0, Duration: time.Hour, Fault: a}, {At: 0, Duration: time.Hour, Fault: b}}, rec)
}

// An instant step (zero Duration) starts, then stops, at its instant; a
// window ending at that instant stops before it, one starting then starts
// before its stop. A stop sorted before its own start left instant faults
// active to the end of the schedule, and every health check after them was
// deferred.
func TestTimelineStopsAnInstantStepAfterItsStart(t *testing.T) {
	f := func(name string) Fault { return &fakeFault{name: name} }
	s := Schedule{
		{At: time.Second, Duration: 0, Fault: f("crash")},
		{At: 0, Duration: time.Second, Fault: f("kill")},
		{At: time.Second, Duration: time.Second, Fault: f("pause")},
	}
	var got []string
	for _, e := range s.timeline() {
		verb := "stop"
		if e.start {
			verb = "start"
		}
		got = append(got, verb+" "+s[e.step].Fault.Name())
	}
	want := []string{"start kill", "stop kill", "start crash", "start pause", "stop crash", "stop pause"}
	if !slices.Equal(got, want) {
		t.Errorf("timeline %v, want %v", got, want)
	}
}
