package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// targetFault is a real-broker fault: at Start it picks nodes, records the
// cluster's leader and controller, and applies apply to them; Stop undoes
// it with heal. Its detail names the target, the nodes, the leader and
// controller seen at Start, and the mechanism used.
type targetFault struct {
	name, startF, stopF string
	tg                  Targeting
	pick                Picker
	target              string
	mechanism           map[string]any // fixed facts: signal, rule kind, rate
	// apply acts on the picked nodes; it returns the part of the fault that
	// is in place (what heal must undo), even when it fails half way.
	apply func(ctx context.Context, nodes []int32) (any, error)
	heal  func(ctx context.Context, applied any) error
	// describe, if set, adds facts that depend on the picked nodes (the
	// links a cut names) to the op's detail.
	describe func(nodes []int32) map[string]any
	// effects are what apply and heal do, for the checks the provider's
	// hooks made of them (cluster.EffectVerifier), named in the detail.
	effects [2]cluster.Effect

	record
	active  bool
	applied any
}

func (f *targetFault) Name() string                 { return f.name }
func (f *targetFault) Events() (start, stop string) { return f.startF, f.stopF }

func (f *targetFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active {
		return nil
	}
	d, nodes, err := f.tg.opening(ctx, f.target, f.pick)
	maps.Copy(d, f.mechanism)
	f.detail = d
	if err != nil {
		return err
	}
	if f.describe != nil {
		maps.Copy(d, f.describe(nodes))
	}
	// Brokers' metadata can disagree for a moment (a healed ex-leader still
	// names itself): the op names the leader or controller the fault hit.
	switch Target(f.target) {
	case TargetLeader:
		d["leader"] = nodes[0]
	case TargetController:
		d["controller"] = nodes[0]
	}
	applied, err := f.apply(ctx, nodes)
	// Active even on error: a half-applied fault must be healed.
	f.active, f.applied = true, applied
	if err == nil {
		d["verified"] = verified(f.tg.Provider, f.effects[0])
	}
	return err
}

func (f *targetFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.active {
		return nil
	}
	// The runner gives heals a context of their own (HealTimeout).
	err := f.heal(ctx, f.applied)
	f.active, f.applied = false, nil
	if err == nil {
		f.detail["heal-verified"] = verified(f.tg.Provider, f.effects[1])
	}
	return err
}

// verified is what p's hook for e checked before it returned nil, for a
// nemesis op: a fault counts as fired or healed only with its effect
// checked, and an op must not claim a check that was not made.
func verified(p any, e cluster.Effect) string {
	if v := cluster.VerifiedBy(p, e); v != "" {
		return v
	}
	return "not checked: the provider's hook only reports that its call succeeded"
}

// eachNode applies down to every node in turn and returns those it acted
// on, so that a fault failing on its second node still heals the first.
// The node it failed on is among them: a hook that acted and then could
// not verify its effect (a SIGSTOP sent, the process not seen stopped) may
// have half-applied it, and heals are idempotent.
func eachNode(down func(context.Context, int32) error) func(context.Context, []int32) (any, error) {
	return func(ctx context.Context, nodes []int32) (any, error) {
		var done []int32
		for _, n := range nodes {
			done = append(done, n)
			if err := down(ctx, n); err != nil {
				return done, fmt.Errorf("node %d: %w", n, err)
			}
		}
		return done, nil
	}
}

// allNodes undoes a fault on every node eachNode acted on, in parallel:
// brokers restarted one after another would each wait for a quorum that
// the next one completes.
func allNodes(up func(context.Context, int32) error) func(context.Context, any) error {
	return func(ctx context.Context, applied any) error {
		nodes, _ := applied.([]int32)
		errs := make([]error, len(nodes))
		var wg sync.WaitGroup
		for i, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := up(ctx, n); err != nil {
					errs[i] = fmt.Errorf("node %d: %w", n, err)
				}
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	}
}

// KillTarget SIGKILLs the target's nodes (kill -9: no shutdown, no flush)
// and restarts them on their storage at Stop.
func KillTarget(k cluster.NodeKiller, tg Targeting, target Target) Fault {
	return &targetFault{name: "kill", startF: "kill", stopF: "restart", tg: tg, pick: tg.Pick(target),
		target: string(target), mechanism: map[string]any{"signal": "SIGKILL"},
		apply: eachNode(k.Kill), heal: allNodes(k.Restart), effects: [2]cluster.Effect{cluster.EffectKill, cluster.EffectRestart}}
}

// PauseTarget SIGSTOPs the target's nodes and SIGCONTs them at Stop.
func PauseTarget(p cluster.NodePauser, tg Targeting, target Target) Fault {
	return &targetFault{name: "pause", startF: "pause", stopF: "resume", tg: tg, pick: tg.Pick(target),
		target: string(target), mechanism: map[string]any{"signal": "SIGSTOP"},
		apply: eachNode(p.Pause), heal: allNodes(p.Resume), effects: [2]cluster.Effect{cluster.EffectPause, cluster.EffectResume}}
}

// CleanStopTarget shuts the target's nodes down cleanly (SIGTERM,
// controlled shutdown) and starts them again at Stop: a clean restart.
func CleanStopTarget(s cluster.NodeStopper, tg Targeting, target Target) Fault {
	return &targetFault{name: "clean-restart", startF: "stop", stopF: "start", tg: tg, pick: tg.Pick(target),
		target: string(target), mechanism: map[string]any{"signal": "SIGTERM"},
		apply: eachNode(s.StopNode), heal: allNodes(s.StartNode), effects: [2]cluster.Effect{cluster.EffectStop, cluster.EffectRestart}}
}

// RollingRestart restarts every broker cleanly, one after another, waiting
// settle after each so that its replicas can catch up before the next goes
// down (what an operator's rolling upgrade does). It acts at Start; a node
// left down by an error or a cancelled run is started again at Stop.
func RollingRestart(s cluster.NodeStopper, tg Targeting, settle time.Duration) Fault {
	return &targetFault{name: "rolling-restart", startF: "rolling-restart", stopF: "rolling-restart-done", tg: tg,
		pick: tg.Pick(TargetAll), target: string(TargetAll),
		mechanism: map[string]any{"signal": "SIGTERM", "settle": settle.String()},
		effects:   [2]cluster.Effect{cluster.EffectRestart, cluster.EffectRestart},
		apply: func(ctx context.Context, nodes []int32) (any, error) {
			for i, n := range nodes {
				if err := s.StopNode(ctx, n); err != nil {
					return []int32{n}, fmt.Errorf("stopping node %d: %w", n, err)
				}
				if err := s.StartNode(ctx, n); err != nil {
					return []int32{n}, fmt.Errorf("starting node %d: %w", n, err)
				}
				if i < len(nodes)-1 {
					if !ctxsleep.For(ctx, settle) {
						return nil, ctx.Err()
					}
				}
			}
			return nil, nil
		},
		heal: allNodes(func(ctx context.Context, n int32) error {
			// StartNode refuses a node that is running: only start it if
			// the failed roll really left it down.
			if up(tg.Provider, n) {
				return nil
			}
			return s.StartNode(ctx, n)
		})}
}

func up(p cluster.Provider, id int32) bool {
	i := slices.IndexFunc(p.Nodes(), func(n cluster.Node) bool { return n.ID == id })
	return i >= 0 && p.Nodes()[i].Up
}
