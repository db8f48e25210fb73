package chaostest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/runner"
)

// schedule turns the faults into a nemesis schedule: cluster kinds as
// every run makes them (runner.ClusterFaults), the client crash kinds as
// crashes of the code under test.
// Each fault is tracked (r.faults), for the run's fault stats and to name
// the steps a schedule cut short never ran.
func (r *run) schedule(sup *supervisor) (nemesis.Schedule, error) {
	cf := runner.ClusterFaults{Provider: r.prov, Scenario: outputTargeted(r.s), IntN: r.intN}
	if err := cf.Unsupported(); err != nil {
		return nil, fmt.Errorf("chaostest: %w", err)
	}
	var out nemesis.Schedule
	for i, f := range r.s.Nemesis {
		nf, err := cf.Fault(f)
		if nf == nil && err == nil {
			nf, err = codeFault(f, sup)
		}
		if err != nil {
			return nil, fmt.Errorf("chaostest: fault %d: %w", i, err)
		}
		t := &tracked{Fault: nf, kind: f.Kind, index: i}
		steps := runner.Steps(f, t)
		t.steps = len(steps)
		r.faults = append(r.faults, t)
		out = append(out, steps...)
	}
	return out, nil
}

// errNotFired wraps the error of a fault that did not take effect (a
// crash that found no running start of the code, or whose code hung): it
// is counted, not fired, and the schedule goes on.
var errNotFired = errors.New("fault did not take effect")

// tracked is one fault of the schedule, counting its steps that started
// and those whose effect was seen.
type tracked struct {
	nemesis.Fault
	kind  string
	index int // in Options.Faults
	steps int // in the schedule

	mu       sync.Mutex
	started  int
	fired    int64
	errs     []string
	startErr bool // a start failed, which stops the schedule
}

// HealBudget is how long the kind's heal may need (its registry entry).
func (t *tracked) HealBudget() time.Duration { return runner.KindHealBudget(t.kind) }

// Name is the scenario's kind, which nemesis.Run records as the op's
// "fault": the nemesis fault built for it may be named otherwise.
func (t *tracked) Name() string { return t.kind }

// Events names its ops by histories' convention for its kind, whatever the
// tracked fault calls them.
func (t *tracked) Events() (start, stop string) {
	return histories.FaultEvents(t.kind, generators.Instantaneous(t.kind))
}

// Detail passes the tracked fault's through.

func (t *tracked) Detail() any {
	if d, ok := t.Fault.(nemesis.Detailer); ok {
		return d.Detail()
	}
	return nil
}

func (t *tracked) Start(ctx context.Context) error {
	err := t.Fault.Start(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started++
	switch {
	case err == nil:
		t.fired++
		return nil
	case len(t.errs) < maxFaultErrors:
		t.errs = append(t.errs, err.Error())
	}
	if errors.Is(err, errNotFired) {
		return nil
	}
	t.startErr = true
	return err
}

// maxFaultErrors bounds the errors kept per fault.
const maxFaultErrors = 5

// stat is the fault as results.json counts it.
func (t *tracked) stat() runner.FaultStat {
	t.mu.Lock()
	defer t.mu.Unlock()
	return runner.FaultStat{Kind: t.kind, Fired: t.fired, Errors: slices.Clone(t.errs)}
}

// scheduleErr is the harness error of the schedule's run: a fault that
// failed to start or to heal, and the steps it never ran, by fault. The
// run's own end cutting the last heals short is none (nemesis.Run heals
// what is active as it returns).
func scheduleErr(nemErr error, faults []*tracked) error {
	var missed []string
	failed := false
	for _, t := range faults {
		t.mu.Lock()
		failed = failed || t.startErr
		if t.started < t.steps {
			missed = append(missed, fmt.Sprintf("fault %d (%s): %d of its %d steps", t.index, t.kind, t.steps-t.started, t.steps))
		}
		t.mu.Unlock()
	}
	var errs []error
	if nemErr != nil && (failed || !errors.Is(nemErr, context.DeadlineExceeded) || errors.Is(nemErr, nemesis.ErrHeal)) {
		errs = append(errs, fmt.Errorf("nemesis: %w", nemErr))
	}
	if len(missed) > 0 {
		errs = append(errs, fmt.Errorf("the fault schedule stopped early (%v); never ran: %s", nemErr, strings.Join(missed, "; ")))
	}
	return errors.Join(errs...)
}

// codeFault is a client fault kind aimed at the code under test, made by
// its builder (codeBuilders).
func codeFault(f generators.Fault, sup *supervisor) (nemesis.Fault, error) {
	build, ok := codeBuilders()[f.Kind]
	if !ok {
		return nil, fmt.Errorf("fault kind %q cannot act on code under test (%s crash it)", f.Kind,
			strings.Join(slices.Sorted(maps.Keys(codeBuilders())), " and "))
	}
	return build(f, sup), nil
}

// codeBuilders is the maker of each client kind that acts on the code
// under test: a crash of it. The other client kinds act on a harness's own
// clients (churn makes a member of its group leave), which the code under
// test has none of.
func codeBuilders() map[string]func(generators.Fault, *supervisor) nemesis.Fault {
	crash := func(f generators.Fault, sup *supervisor) nemesis.Fault { return &crashFault{kind: f.Kind, sup: sup} }
	return map[string]func(generators.Fault, *supervisor) nemesis.Fault{
		generators.KindCrashConsumer: crash,
		generators.KindCrashProducer: crash,
	}
}

// buildable reports whether a run here can make kind: a cluster kind
// (one with a capability) as every run makes it, a client kind with a
// builder for the code under test.
func buildable(kind string) bool {
	_, onCode := codeBuilders()[kind]
	return onCode || generators.KindCapability(kind) != ""
}

// outputTargeted is s with key 0 on output partition 0, for the faults'
// targets (the leader, a minority...), which name key 0's partition: the
// code under test writes the output, so that partition's leader is the one
// whose failover can lose what the code was told was written.
func outputTargeted(s generators.Scenario) generators.Scenario {
	s.Keys.Map = maps.Clone(s.Keys.Map)
	s.Keys.Map["0"] = generators.TopicPartition{Topic: s.Keys.OutputTopic, Partition: 0}
	return s
}
