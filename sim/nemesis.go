package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing/synctest"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// step is one thing the nemesis does at a virtual instant: a fault's
// start or repeat (heal false) or its heal.
type step struct {
	at    time.Duration
	fault int
	heal  bool
}

// schedule is every step of s's nemesis in time order; a window that
// outlasts the workload heals at its end.
func schedule(s generators.Scenario) []step {
	var out []step
	for i, f := range s.Nemesis {
		for _, at := range generators.Steps(f) {
			if at < s.TimeLimit.D() {
				out = append(out, step{at: at, fault: i})
			}
		}
		if !generators.Instantaneous(f.Kind) {
			out = append(out, step{at: min(f.End().D(), s.TimeLimit.D()), fault: i, heal: true})
		}
	}
	slices.SortStableFunc(out, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	return out
}

// nemesis injects the scenario's faults, each at a quiet point: once the
// step's instant has come and every other goroutine of the bubble is
// blocked, so what the fault meets does not depend on scheduling.
type nemesis struct {
	e         *env
	r         *rand.Rand
	producers []*producer
	consumers []*consumer
	active    map[int]func() error // heals of the faults holding a window
}

func (n *nemesis) run(steps []step) error {
	n.active = map[int]func() error{}
	for _, st := range steps {
		time.Sleep(time.Until(n.e.start.Add(st.at)))
		synctest.Wait()
		if err := n.do(st); err != nil {
			return err
		}
	}
	return n.healAll()
}

// healAll heals what is still active, in fault order.
func (n *nemesis) healAll() error {
	for _, i := range slices.Sorted(maps.Keys(n.active)) {
		if err := n.do(step{fault: i, heal: true}); err != nil {
			return err
		}
	}
	return nil
}

func (n *nemesis) do(st step) error {
	f := n.e.s.Nemesis[st.fault]
	if st.heal {
		heal, ok := n.active[st.fault]
		if !ok {
			return nil
		}
		delete(n.active, st.fault)
		if err := heal(); err != nil {
			return fmt.Errorf("sim: healing fault %d (%s): %w", st.fault, f.Kind, err)
		}
		n.e.rec.Nemesis(histories.FaultStop(f.Kind), faultValue{Fault: f.Kind, Detail: map[string]any{"step": st.fault}})
		return nil
	}
	heal, what, err := n.start(f, st.fault)
	if err != nil {
		return fmt.Errorf("sim: fault %d (%s): %w", st.fault, f.Kind, err)
	}
	if heal != nil {
		n.active[st.fault] = heal
		n.e.landed(histories.FaultStart(f.Kind), f.Kind, what)
	} else if what != nil {
		n.e.landed(f.Kind, f.Kind, what)
	}
	return nil
}

// start makes f, the scenario's fault step, take effect with its kind's
// builder (builders); supported has refused the kinds it has none for.
func (n *nemesis) start(f generators.Fault, step int) (func() error, any, error) {
	build, ok := builders()[f.Kind]
	if !ok {
		return nil, nil, fmt.Errorf("kind %q is not simulated", f.Kind)
	}
	return build(n, f, step)
}
