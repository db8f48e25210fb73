package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// HealTimeout bounds one heal. A heal never inherits the run's deadline or
// cancellation (a run ending mid-restart must still get its cluster back),
// and restarting JVMs on two shared cores has taken half a minute.
const HealTimeout = 2 * time.Minute

// ErrHeal marks a fault whose Stop failed: the cluster may still be faulty,
// so the run's final reads and verdict cannot be trusted. Run's error wraps
// it once per fault that failed to heal, naming the fault.
var ErrHeal = errors.New("nemesis: heal failed")

// Run walks schedule against the clock, starting and stopping faults and
// recording each as a nemesis op. Whatever happens (the schedule ends, ctx
// is cancelled, a fault fails, a panic) every started fault is stopped
// before Run returns; a panic is re-raised after healing. It returns the
// first fault error, or ctx's error if the schedule was cut short, joined
// with every heal failure (errors.Is(err, ErrHeal)): a heal failure must
// never hide behind a deadline that a normal end of the run also reports.
func Run(ctx context.Context, schedule Schedule, rec Recorder) (err error) {
	if err := schedule.Validate(); err != nil {
		return err
	}
	r := &runner{rec: rec, active: map[int]Fault{}}
	defer func() {
		p := recover()
		err = errors.Join(err, r.healAll())
		if p != nil {
			panic(p)
		}
	}()
	start := time.Now()
	for _, ev := range schedule.timeline() {
		if err := sleepUntil(ctx, start.Add(ev.at)); err != nil {
			return err
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
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// start starts f; it counts as active even when Start fails, because a
// failed Start may have half-applied it.
func (r *runner) start(ctx context.Context, step int, f Fault) error {
	r.active[step] = f
	err := f.Start(ctx)
	startF, _ := events(f)
	r.record(startF, f, err)
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
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), HealTimeout)
	defer cancel()
	err := f.Stop(hctx)
	_, stopF := events(f)
	r.record(stopF, f, err)
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
	Error  string `json:"error,omitempty"`
}

func (r *runner) record(f string, fault Fault, err error) {
	v := nemesisValue{Fault: fault.Name()}
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
		b, _ = json.Marshal(nemesisValue{Fault: v.Fault, Detail: fmt.Sprint(v.Detail), Error: v.Error})
	}
	op.Value = b
	r.rec.Record(op)
}
