// Package simrun makes the simulation's runs into the runner's outcomes,
// for explore (explore.Run) and for the benchmarks that set the
// simulation beside the embedded cluster.
//
// It is apart from package sim so that sim's test binary, which plays
// every draw in a child process, links neither runner nor its clients.
// It must not judge anything itself: sim.Check does, as runner would.
package simrun

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/sim"
)

// Run plays each scenario by pl, in a directory of its own under dir that
// keeps scenario.json and history.jsonl (what `kafkachaos check` reads),
// and judges it by sim.Check.
func Run(pl *sim.Player, dir string) explore.Run {
	var n atomic.Int64
	return func(ctx context.Context, s generators.Scenario) (runner.Outcome, error) {
		d := filepath.Join(dir, fmt.Sprintf("%s-%d", s.Name, n.Add(1)))
		out := runner.Outcome{Dir: d, Kept: true, Scenario: s}
		p, err := pl.Play(ctx, d, s)
		if err != nil {
			return out, err
		}
		v, err := sim.Check(s, p)
		if err != nil {
			return out, err
		}
		out.Result, out.Expected, out.Observed, out.Held = v.Result, v.Expected, v.Observed, v.Held
		out.Stats.FaultsFired, out.Simulated = int64(p.FaultsFired), p.Virtual
		return out, nil
	}
}
