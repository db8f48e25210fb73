package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

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

// start makes f, the scenario's fault step, take effect; it returns the
// heal of a window fault and what an instantaneous fault did (nil: it did
// not act now, e.g. a consumer's crash, which records its own op once it
// lands).
func (n *nemesis) start(f generators.Fault, step int) (func() error, any, error) {
	c := n.e.c
	switch f.Kind {
	case generators.KindLostAck:
		h := c.fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.RequestTimedOut, Count: -1,
			When: func(req kmsg.Request) bool { return c.flip(f.Params.Probability, req.AppendTo(nil)) }})
		return func() error { h.Remove(); return nil }, map[string]any{"step": step, "probability": f.Params.Probability}, nil
	case generators.KindDelay:
		d := f.Params.Delay.D()
		rf := &requestFault{keys: []int16{int16(kmsg.Produce), int16(kmsg.Fetch)}, probability: f.Params.Probability, delay: d}
		c.install(rf)
		return func() error { c.remove(rf); return nil }, map[string]any{"step": step, "delay": d.String()}, nil
	case generators.KindDrop:
		rf := &requestFault{keys: []int16{int16(kmsg.Produce), int16(kmsg.Fetch), int16(kmsg.OffsetCommit)},
			probability: f.Params.Probability, act: func() (kmsg.Response, error, bool) { return nil, errDropped, true }}
		c.install(rf)
		return func() error { c.remove(rf); return nil }, map[string]any{"step": step, "probability": f.Params.Probability}, nil
	case generators.KindLeaderShuffle:
		return nil, map[string]any{"step": step}, c.placeLeaders()
	case generators.KindKill:
		return n.kill(f, step)
	}
	return nil, n.client(f, step), nil
}

func (n *nemesis) kill(f generators.Fault, step int) (func() error, any, error) {
	nodes := f.Params.Nodes
	if len(nodes) == 0 {
		nodes = []int32{int32(n.r.IntN(n.e.c.brokers))}
	}
	for _, node := range nodes {
		if err := n.e.c.kill(node); err != nil {
			return nil, nil, err
		}
	}
	heal := func() error {
		for _, node := range nodes {
			if err := n.e.c.restart(node); err != nil {
				return err
			}
		}
		return nil
	}
	return heal, map[string]any{"step": step, "nodes": nodes}, nil
}

// client crashes a producer, drawn from the seed, at once, or asks a
// consumer to crash or churn: the consumer acts between its ops or at its
// crash point, and records the fault's op then (nothing when it never got
// there, or already had a request waiting).
func (n *nemesis) client(f generators.Fault, step int) any {
	switch f.Kind {
	case generators.KindCrashProducer:
		if len(n.producers) == 0 {
			return nil
		}
		i := n.r.IntN(len(n.producers))
		if err := n.producers[i].crash(); err != nil {
			return nil
		}
		return map[string]any{"step": step, "producer": i}
	case generators.KindCrashConsumer, generators.KindChurn:
		if len(n.consumers) == 0 {
			return nil
		}
		i := n.r.IntN(len(n.consumers))
		req := faultReq{kind: f.Kind, step: step, point: cmp.Or(f.Params.Point, generators.CrashAnywhere)}
		if f.Kind == generators.KindChurn {
			req.point = churnRequest
		}
		select {
		case n.consumers[i].faults <- req:
		default:
		}
	}
	return nil
}
