package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/sim"
)

// simCluster is --cluster's value for the deterministic simulation.
const simCluster = "sim"

// simCampaign is the campaign of --cluster sim: draws of sim.Space, each
// played in a child process of a test binary built from package sim, and
// shrunk with one run per candidate (a simulated run is a function of its
// scenario) unless --k says otherwise.
func (ef exploreFlags) simCampaign(fs *flag.FlagSet, sp explore.Space, runs string) (explore.Campaign, error) {
	switch {
	case ef.plant != "":
		return explore.Campaign{}, errors.New("--plant is not offered with --cluster sim")
	case ef.fresh:
		return explore.Campaign{}, errors.New("--fresh: every simulated draw has a cluster of its own")
	}
	dir := filepath.Join(runs, "explore", "sim")
	bin := filepath.Join(dir, "sim.test")
	if err := sim.BuildChild(context.Background(), bin); err != nil {
		return explore.Campaign{}, err
	}
	judge, err := explore.ClaimJudge(sp.Claim(), simRun(bin, dir))
	if err != nil {
		return explore.Campaign{}, err
	}
	k := 1
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "k" {
			k = ef.k
		}
	})
	return explore.Campaign{Gen: sim.Space(), Space: sp, Seed: ef.seed, Duration: ef.duration, Judge: judge, K: k,
		Shrink: !ef.noShrink}, nil
}

// simRun plays each scenario in a child process of bin, in a directory of
// its own under dir (scenario.json and history.jsonl, which `kafkachaos
// check` reads), judged by sim.Check as runner judges a run.
func simRun(bin, dir string) explore.Run {
	var n atomic.Int64
	return func(ctx context.Context, s generators.Scenario) (runner.Outcome, error) {
		d := filepath.Join(dir, fmt.Sprintf("%s-%d", s.Name, n.Add(1)))
		out := runner.Outcome{Dir: d, Kept: true, Scenario: s}
		p, err := sim.Spawn(ctx, bin, d, s)
		if err != nil {
			return out, err
		}
		v, err := sim.Check(s, p)
		if err != nil {
			return out, err
		}
		out.Result, out.Expected, out.Observed, out.Held = v.Result, v.Expected, v.Observed, v.Held
		out.Stats.FaultsFired = int64(p.FaultsFired)
		return out, nil
	}
}
