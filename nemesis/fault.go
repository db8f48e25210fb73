package nemesis

import (
	"context"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Fault is one kind of trouble.
type Fault interface {
	// Name identifies the fault in schedules and reports.
	Name() string
	// Start injects the fault.
	Start(ctx context.Context) error
	// Stop heals it. Stop is idempotent and safe after a failed Start.
	Stop(ctx context.Context) error
}

// Events is implemented by faults whose start and stop ops have fs of their
// own; a schedule's wrappers (the runner's, chaostest's) name them by
// histories' convention for the scenario's kind. Other faults record
// histories.FaultStart(Name()) and FaultStop(Name()).
type Events interface {
	Events() (start, stop string)
}

// HealBudgeter is implemented by faults whose heal may need longer than
// HealTimeout to leave the cluster healthy (a power loss of every broker):
// their Stop, and the health check after it, get HealBudget instead when
// longer.
type HealBudgeter interface {
	HealBudget() time.Duration
}

// healBound is how long f's heal, and the wait for health after it, may
// take: at least bound, or f's HealBudget.
func healBound(f Fault, bound time.Duration) time.Duration {
	if b, ok := f.(HealBudgeter); ok {
		return max(bound, b.HealBudget())
	}
	return bound
}

// Detailer is implemented by faults that say what they did (nodes, keys,
// hit counts); Detail is recorded as the op's value, after Start and after
// Stop.
type Detailer interface {
	Detail() any
}

// Recorder appends ops to the history; histories.Recorder satisfies it.
type Recorder interface {
	Record(op *histories.Op) *histories.Op
}

func events(f Fault) (start, stop string) {
	if e, ok := f.(Events); ok {
		return e.Events()
	}
	return histories.FaultStart(f.Name()), histories.FaultStop(f.Name())
}
