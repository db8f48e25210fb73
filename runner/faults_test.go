package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/workers"
)

func TestStepsPlaceFaultsOnTheTimeline(t *testing.T) {
	ms := func(n int) generators.Duration { return generators.Duration(time.Duration(n) * time.Millisecond) }
	m := &meteredFault{}
	win := Steps(generators.Fault{Kind: generators.KindLostAck, Start: ms(100), Duration: ms(500)}, m)
	if len(win) != 1 || win[0].At != 100*time.Millisecond || win[0].Duration != 500*time.Millisecond {
		t.Fatalf("window fault: %+v, want one step at 100ms for 500ms", win)
	}
	rep := Steps(generators.Fault{Kind: generators.KindCrashConsumer, Start: ms(100), Duration: ms(500),
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
	once := Steps(generators.Fault{Kind: generators.KindChurn, Start: ms(100), Duration: ms(500)}, m)
	if len(once) != 1 {
		t.Fatalf("instant fault without every fires %d times, want once", len(once))
	}
}

// stubFault fails its start with err and its heal with healErr.
type stubFault struct{ err, healErr error }

func (f stubFault) Name() string                { return "stub" }
func (f stubFault) Start(context.Context) error { return f.err }
func (f stubFault) Stop(context.Context) error  { return f.healErr }

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
	idle := &meteredFault{Fault: stubFault{err: workers.ErrNothingToCrash}, kind: "y", active: &active}
	if err := idle.Start(context.Background()); err != nil {
		t.Fatalf("a client fault with nothing to act on stopped the schedule: %v", err)
	}
	if st := idle.stat(); st.Fired != 0 || len(st.Errors) != 1 {
		t.Fatalf("idle stat %+v, want 0 fired and the error noted", st)
	}
	broken := &meteredFault{Fault: stubFault{err: errors.New("boom")}, kind: "z", active: &active}
	if err := broken.Start(context.Background()); err == nil {
		t.Fatal("a failing cluster fault was swallowed")
	}
}

// TestScheduleKeepsFailedHeals: a heal that fails is
// the schedule's error, naming the fault, whether the run's deadline ended
// the schedule (nemesis.Run then returned the deadline) or the schedule
// ended first; the deadline alone is no error.
func TestScheduleKeepsFailedHeals(t *testing.T) {
	cases := []struct {
		name     string
		duration time.Duration // of the fault window; the run lasts 300ms
		healErr  error
	}{
		{"cut short by the run's end", time.Hour, errors.New("node 2 did not restart")},
		{"schedule over before the run", 50 * time.Millisecond, errors.New("node 2 did not restart")},
		{"healed", time.Hour, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := &schedule{}
			m := &meteredFault{Fault: stubFault{healErr: c.healErr}, kind: "kill", index: 3, active: &sc.active}
			sc.meter = []*meteredFault{m}
			sc.steps = nemesis.Schedule{{Duration: c.duration, Fault: m}}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := sc.run(ctx, client.NewMemRecorder())
			if c.healErr == nil {
				if err != nil {
					t.Fatalf("a run that healed and hit its deadline: %v", err)
				}
				return
			}
			want := "fault kill (nemesis[3]) could not be healed: " + c.healErr.Error()
			if err == nil || !errors.Is(err, c.healErr) || strings.Count(err.Error(), c.healErr.Error()) != 1 ||
				!strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v; want it once, as %q", err, want)
			}
		})
	}
}

// TestOnlyContextErrorsAreTheRunsEnd: the schedule drops errors that are
// only the run's end, and keeps anything joined with or wrapping more.
func TestOnlyContextErrorsAreTheRunsEnd(t *testing.T) {
	boom := errors.New("boom")
	for err, want := range map[error]bool{
		context.DeadlineExceeded: true,
		errors.Join(context.Canceled, fmt.Errorf("nemesis: start kill: %w", context.DeadlineExceeded)): true,
		boom: false,
		errors.Join(context.DeadlineExceeded, boom):                        false,
		fmt.Errorf("%w: %w", errors.New("heal"), context.DeadlineExceeded): false,
	} {
		if got := onlyContext(err); got != want {
			t.Errorf("onlyContext(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestClientFaultCountsOnlyWhatTookEffect: a consumer
// crash counts as fired once the consumer has crashed, not when it was
// asked to; a crash at a point its commit strategy never reaches, or one
// that has not happened when the wait ends, is an error of the fault, not
// fired, and neither stops nor holds up the schedule.
func TestClientFaultCountsOnlyWhatTookEffect(t *testing.T) {
	cases := []struct {
		name   string
		commit client.CommitStrategy
		point  string
		fired  int64
		errs   string
	}{
		// An idle consumer crashes at once when asked to crash anywhere.
		{"anywhere", client.CommitAfterProcessing, generators.CrashAnywhere, 1, ""},
		// Nothing polls: the crash before the commit has not happened
		// when the run (ctx, 1s) ends; the error says how long it waited.
		{"never reached", client.CommitAfterProcessing, generators.CrashBeforeCommit, 0, "the run ended before the requested crash happened (awaited "},
		{"unreachable", client.CommitNone, generators.CrashAfterCommit, 0, "never reaches"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cons, sc, m := crashConsumerFault(t, c.commit, c.point)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			began := time.Now()
			if err := m.Start(ctx); err != nil {
				t.Fatalf("a client fault stopped the schedule: %v", err)
			}
			// The schedule goes on while a requested crash is awaited.
			if took := time.Since(began); took > 200*time.Millisecond {
				t.Fatalf("Start blocked the schedule for %v", took)
			}
			sc.confirming.Wait()
			st := m.stat()
			if st.Fired != c.fired || (c.errs == "") != (len(st.Errors) == 0) ||
				(c.errs != "" && !strings.Contains(st.Errors[0], c.errs)) {
				t.Fatalf("stat %+v, want %d fired and errors naming %q", st, c.fired, c.errs)
			}
			if crashed := cons.Crashed(); crashed != (c.fired == 1) {
				t.Fatalf("consumer crashed %v, fired %d", crashed, st.Fired)
			}
		})
	}
}

// TestSecondCrashRequestOfAWorkerIsRefused: while a worker's requested
// crash has not landed, no second request is made of it (the fault finds
// no worker to act on, not fired): both would be counted for the one crash
// that lands.
func TestSecondCrashRequestOfAWorkerIsRefused(t *testing.T) {
	_, sc, m := crashConsumerFault(t, client.CommitAfterProcessing, generators.CrashBeforeCommit)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	for range 2 {
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sc.confirming.Wait()
	st := m.stat()
	if st.Fired != 0 || len(st.Errors) != 2 || !strings.Contains(strings.Join(st.Errors, "; "), workers.ErrNothingToCrash.Error()) {
		t.Fatalf("stat %+v: want nothing fired, the second request refused and the first never landed", st)
	}
}

// crashConsumerFault is a crash-consumer fault at point, made and metered
// as a run makes it, over a schedule whose one consumer slot holds an idle
// consumer of group "g" (on a closed port: it never polls) committing with
// commit.
func crashConsumerFault(t *testing.T, commit client.CommitStrategy, point string) (*client.Consumer, *schedule, *meteredFault) {
	t.Helper()
	keys, err := client.NewKeyMap(map[histories.Key]client.TopicPartition{0: {Topic: "in"}})
	if err != nil {
		t.Fatal(err)
	}
	cons, err := client.NewConsumer(client.ConsumerOptions{Bootstrap: "127.0.0.1:1", Keys: keys, Recorder: client.NewMemRecorder(),
		Config: client.ConsumerConfig{Group: "g", Commit: commit}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cons.Close() })
	sc := &schedule{consumers: holding(cons), awaiting: map[int64]bool{}, rng: rand.New(rand.NewPCG(1, 2))}
	fault, err := sc.fault(generators.Fault{Kind: generators.KindCrashConsumer, Params: generators.FaultParams{Point: point}})
	if err != nil {
		t.Fatal(err)
	}
	return cons, sc, &meteredFault{Fault: fault, kind: generators.KindCrashConsumer, active: &sc.active}
}

// holding is one consumer slot holding c.
func holding(c *client.Consumer) []*workers.ConsumerSlot {
	slot := &workers.ConsumerSlot{}
	slot.Put(c)
	return []*workers.ConsumerSlot{slot}
}

// TestProducerCrashPassesOverAnOpeningCopier: while the copier has not
// opened (its transactional producer waits for a coordinator, as when a
// broker is down at the start), every crash-producer step crashes the
// running producer instead of finding "no client to act on" in the
// copier's empty slot (a CI run's draw never fired its crash-producer so).
func TestProducerCrashPassesOverAnOpeningCopier(t *testing.T) {
	s := copyScenario()
	w, err := workers.New(s, workers.Options{Bootstrap: "127.0.0.1:1", Recorder: client.NewMemRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := workers.KeyMap(s.Keys.Map)
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: "127.0.0.1:1", Keys: keys,
		Recorder: client.NewMemRecorder(), Processes: &client.Processes{}})
	if err != nil {
		t.Fatal(err)
	}
	slot := w.Producers()[0]
	slot.Put(p)
	t.Cleanup(func() { slot.Current().Crash() })
	sc := &schedule{producers: w.Producers(), copiers: w.Copiers(), awaiting: map[int64]bool{}}
	for seed := range uint64(8) {
		sc.rng = rand.New(rand.NewPCG(seed, 2))
		before := slot.Current()
		if _, err := sc.crashProducer(context.Background()); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		crashed := errors.Is(before.SendAsync(context.Background(), 0, 1, nil), client.ErrCrashed)
		if !crashed || slot.Current() == before {
			t.Fatalf("seed %d: the running producer was not crashed and replaced", seed)
		}
	}
}

// blockingFault's start waits for the run's end and fails with it, as a
// fault waiting on the cluster does when the run ends under it.
type blockingFault struct{}

func (blockingFault) Name() string { return "blocking" }
func (blockingFault) Start(ctx context.Context) error {
	<-ctx.Done()
	return fmt.Errorf("waiting for a leader: %w", ctx.Err())
}
func (blockingFault) Stop(context.Context) error { return nil }

// playSchedule plays one step per fault, at the given offsets, metered as
// nemesis[i], on a run of length run, and returns the schedule's error
// and its stats.
func playSchedule(t *testing.T, run time.Duration, faults []nemesis.Fault, at []time.Duration) (error, []FaultStat) {
	t.Helper()
	sc := &schedule{}
	for i, f := range faults {
		m := &meteredFault{Fault: f, kind: fmt.Sprintf("kind-%d", i), index: i, active: &sc.active}
		sc.meter = append(sc.meter, m)
		sc.steps = append(sc.steps, nemesis.Step{At: at[i], Duration: 10 * time.Millisecond, Fault: m})
	}
	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	err := sc.run(ctx, client.NewMemRecorder())
	return err, sc.stats()
}

// TestScheduleStoppedEarlyIsAHarnessError: a fault whose start fails with
// an error wrapping a deadline of its own, while the run goes on, stops
// the schedule; that is a harness error keeping the start's error and
// naming every fault that never ran, not the run's quiet end.
func TestScheduleStoppedEarlyIsAHarnessError(t *testing.T) {
	own := fmt.Errorf("waiting for a leader: %w", context.DeadlineExceeded)
	err, stats := playSchedule(t, time.Second, []nemesis.Fault{stubFault{}, stubFault{err: own}, stubFault{}, stubFault{}},
		[]time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond})
	if err == nil {
		t.Fatal("a schedule stopped by a fault's own deadline, with the run still on, ended quietly")
	}
	for _, want := range []string{own.Error(), "never ran", "kind-2 (nemesis[2]) due at 100ms", "kind-3 (nemesis[3]) due at 150ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to name %q", err, want)
		}
	}
	for _, ran := range []string{"kind-0", "kind-1"} {
		if strings.Contains(err.Error(), ran+" (") {
			t.Errorf("err = %v names %s, which ran", err, ran)
		}
	}
	if got := stats[2].NeverRan; len(got) != 1 || got[0] != "due at 100ms" {
		t.Errorf("stats of nemesis[2]: never ran %q, want [due at 100ms]", got)
	}
}

// TestScheduleCutByTheRunsEndNamesWhatNeverStarted: the run's own end may
// end a schedule quietly (a fault then waiting fails with the run's
// deadline), but a step due before that end that never started, because
// an earlier fault held the schedule until the end, is named in its stats;
// one due after the end is not.
func TestScheduleCutByTheRunsEndNamesWhatNeverStarted(t *testing.T) {
	err, stats := playSchedule(t, 300*time.Millisecond, []nemesis.Fault{blockingFault{}, stubFault{}, stubFault{}},
		[]time.Duration{0, 100 * time.Millisecond, time.Hour})
	if err != nil {
		t.Fatalf("a schedule cut by the run's end: %v, want no error", err)
	}
	if got := stats[1].NeverRan; len(got) != 1 || got[0] != "due at 100ms" {
		t.Errorf("stats of nemesis[1]: never ran %q, want [due at 100ms]", got)
	}
	if got := stats[2].NeverRan; len(got) != 0 {
		t.Errorf("stats of nemesis[2], due after the run's end: never ran %q, want none", got)
	}
}
