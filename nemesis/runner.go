package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// HealTimeout bounds one heal. A heal never inherits the run's deadline or
// cancellation (a run ending mid-restart must still get its cluster back),
// and restarting JVMs on two shared cores has taken half a minute.
const HealTimeout = 2 * time.Minute

// ErrHeal marks a fault whose Stop failed: the cluster may still be faulty,
// so the run's final reads and verdict cannot be trusted. Run's error wraps
// it once per fault that failed to heal, naming the fault. A cluster that
// stays unhealthy after a heal that succeeded is no heal failure: the
// stop op records it (histories.NotRecoveredOf), for the checkers to
// report as the system's own.
var ErrHeal = errors.New("nemesis: heal failed")

// Run walks schedule against the clock, starting and stopping faults and
// recording each as a nemesis op. Whatever happens (the schedule ends, ctx
// is cancelled, a fault fails, a panic) every started fault is stopped
// before Run returns; a panic is re-raised after healing. It returns the
// first fault error, or ctx's error if the schedule was cut short, joined
// with every heal failure (errors.Is(err, ErrHeal)): a heal failure must
// never hide behind a deadline that a normal end of the run also reports.
// WithHealth adds the cluster health checks around faults.
func Run(ctx context.Context, schedule Schedule, rec Recorder, opts ...Option) (err error) {
	if err := schedule.Validate(); err != nil {
		return err
	}
	r := &runner{rec: rec, active: map[int]Fault{}}
	for _, o := range opts {
		o(r)
	}
	defer func() {
		p := recover()
		err = errors.Join(err, r.healAll())
		if p != nil {
			panic(p)
		}
	}()
	start := time.Now()
	for _, ev := range schedule.timeline() {
		if !ctxsleep.Until(ctx, start.Add(ev.at)) {
			return ctx.Err()
		}
		f := schedule[ev.step].Fault
		if ev.start {
			err = r.start(ctx, ev.step, f)
		} else {
			err = r.stop(ctx, ev.step, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type runner struct {
	rec    Recorder
	active map[int]Fault // by step
	health cluster.HealthChecker
	within time.Duration // bound of one wait for health
	// owed is the longest heal budget (HealBudgeter) of the faults
	// stopped since health was last checked after a heal: the check
	// waits for the slowest of them.
	owed time.Duration
}

// Option configures Run.
type Option func(*runner)

// WithHealth makes Run check hc as etcd's robustness suite checks cluster
// health around each failpoint. Before a fault starts on a cluster with no
// fault in force, Run waits (at most within) for it to be healthy; if it is
// not, the fault still starts (the schedule is the run's), and its op says
// so, since its effect proves nothing. After a fault stops, once no other
// is in force (the last heal of the schedule included), Run waits at most
// within for health again: a cluster still unhealthy then, after a Stop
// that verified its undo, did not recover by itself. That is recorded in
// the stop op and the schedule goes on: it is a finding about the cluster
// (histories.NotRecoveredOf), not an error of the harness. Health checked
// while other faults hold would wait for what they break; the check comes
// with the last of them. A fault whose heal needs longer (HealBudgeter)
// gets its budget for its Stop and for that wait.
func WithHealth(hc cluster.HealthChecker, within time.Duration) Option {
	return func(r *runner) { r.health, r.within = hc, within }
}

// start starts f; it counts as active even when Start fails, because a
// failed Start may have half-applied it.
func (r *runner) start(ctx context.Context, step int, f Fault) error {
	health := r.healthBefore(ctx)
	r.active[step] = f
	err := f.Start(ctx)
	startF, _ := events(f)
	r.record(startF, f, health, err)
	if err != nil {
		return fmt.Errorf("nemesis: start %s: %w", f.Name(), err)
	}
	return nil
}

func (r *runner) stop(ctx context.Context, step int, f Fault) error {
	if _, ok := r.active[step]; !ok {
		return nil
	}
	delete(r.active, step)
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healBound(f, HealTimeout))
	defer cancel()
	err := f.Stop(hctx)
	r.owed = max(r.owed, healBound(f, r.within))
	health := r.healthAfter(ctx, r.owed)
	_, stopF := events(f)
	r.record(stopF, f, health, err)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrHeal, f.Name(), err)
	}
	return nil
}

// healAll stops every active fault; stop detaches each heal from the
// run's context, which may be the reason we are healing.
func (r *runner) healAll() error {
	var errs []error
	for step, f := range r.active {
		errs = append(errs, r.stop(context.Background(), step, f))
	}
	return errors.Join(errs...)
}

// nemesisValue is the value of a nemesis op.
type nemesisValue struct {
	Fault  string `json:"fault"`
	Detail any    `json:"detail,omitempty"`
	// Health is the cluster health check around the op (WithHealth).
	Health *histories.Health `json:"health,omitempty"`
	Error  string            `json:"error,omitempty"`
}

func (r *runner) record(f string, fault Fault, health *histories.Health, err error) {
	v := nemesisValue{Fault: fault.Name(), Health: health}
	if d, ok := fault.(Detailer); ok {
		v.Detail = d.Detail()
	}
	op := &histories.Op{Process: histories.NemesisProcess, Type: histories.Info, F: f}
	if err != nil {
		v.Error = err.Error()
		op.Error = err.Error()
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		// A detail that cannot be marshalled is recorded as its text.
		b, _ = json.Marshal(nemesisValue{Fault: v.Fault, Detail: fmt.Sprint(v.Detail), Health: health, Error: v.Error})
	}
	op.Value = b
	r.rec.Record(op)
}
