package sim

import (
	"cmp"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/generators"
)

// builder makes f, the scenario's fault step, take effect: it returns the
// heal of a window fault and what an instantaneous fault did (nil: it did
// not act now, e.g. a consumer's crash, which records its own op once it
// lands).
type builder func(n *nemesis, f generators.Fault, step int) (heal func() error, what any, err error)

// builders is the simulation's maker of each fault kind it runs, the kinds
// generators.KindsFor("sim") claims: kfake's own request faults, leader
// moves and node kills, and the crash and churn of its workers.
func builders() map[string]builder {
	return map[string]builder{
		generators.KindLostAck:       (*nemesis).lostAck,
		generators.KindDelay:         (*nemesis).delay,
		generators.KindDrop:          (*nemesis).drop,
		generators.KindLeaderShuffle: (*nemesis).leaderShuffle,
		generators.KindKill:          (*nemesis).kill,
		generators.KindCrashProducer: (*nemesis).crashProducer,
		generators.KindCrashConsumer: func(n *nemesis, f generators.Fault, step int) (func() error, any, error) {
			n.ask(faultReq{kind: f.Kind, step: step, point: cmp.Or(f.Params.Point, generators.CrashAnywhere)})
			return nil, nil, nil
		},
		generators.KindChurn: func(n *nemesis, f generators.Fault, step int) (func() error, any, error) {
			n.ask(faultReq{kind: f.Kind, step: step, point: churnRequest})
			return nil, nil, nil
		},
	}
}

// lostAck applies produce requests and answers them REQUEST_TIMED_OUT.
func (n *nemesis) lostAck(f generators.Fault, step int) (func() error, any, error) {
	c := n.e.c
	h := c.fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.RequestTimedOut, Count: -1,
		When: func(req kmsg.Request) bool { return c.flip(f.Params.Probability, req.AppendTo(nil)) }})
	return func() error { h.Remove(); return nil }, map[string]any{"step": step, "probability": f.Params.Probability}, nil
}

// delay holds produce and fetch requests for Params.Delay.
func (n *nemesis) delay(f generators.Fault, step int) (func() error, any, error) {
	d := f.Params.Delay.D()
	rf := &requestFault{keys: []int16{int16(kmsg.Produce), int16(kmsg.Fetch)}, probability: f.Params.Probability, delay: d}
	n.e.c.install(rf)
	return func() error { n.e.c.remove(rf); return nil }, map[string]any{"step": step, "delay": d.String()}, nil
}

// drop closes the client's connection on a produce, fetch or commit.
func (n *nemesis) drop(f generators.Fault, step int) (func() error, any, error) {
	rf := &requestFault{keys: []int16{int16(kmsg.Produce), int16(kmsg.Fetch), int16(kmsg.OffsetCommit)},
		probability: f.Params.Probability, act: func() (kmsg.Response, error, bool) { return nil, errDropped, true }}
	n.e.c.install(rf)
	return func() error { n.e.c.remove(rf); return nil }, map[string]any{"step": step, "probability": f.Params.Probability}, nil
}

func (n *nemesis) leaderShuffle(_ generators.Fault, step int) (func() error, any, error) {
	return nil, map[string]any{"step": step}, n.e.c.placeLeaders()
}

// kill takes Params.Nodes, or one node drawn from the seed, down for the
// window.
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

// crashProducer crashes a producer, drawn from the seed, at once.
func (n *nemesis) crashProducer(_ generators.Fault, step int) (func() error, any, error) {
	if len(n.producers) == 0 {
		return nil, nil, nil
	}
	i := n.r.IntN(len(n.producers))
	if err := n.producers[i].crash(); err != nil {
		return nil, nil, nil
	}
	return nil, map[string]any{"step": step, "producer": i}, nil
}

// ask asks a consumer, drawn from the seed, to crash or churn: the
// consumer acts between its ops or at its crash point, and records the
// fault's op then (nothing when it never got there, or already had a
// request waiting).
func (n *nemesis) ask(req faultReq) {
	if len(n.consumers) == 0 {
		return
	}
	i := n.r.IntN(len(n.consumers))
	select {
	case n.consumers[i].faults <- req:
	default:
	}
}
