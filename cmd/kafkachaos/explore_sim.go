package main

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/sim"
	"github.com/kafkachaos/kafkachaos/sim/simrun"
)

// simCluster is --cluster's value for the deterministic simulation.
const simCluster = "sim"

// simCampaign is the campaign of --cluster sim: draws of sim.Space, played
// in child processes of a test binary built from package sim (ended by the
// func it returns), and shrunk with one run per candidate (a simulated run
// is a function of its scenario) unless --k says otherwise. Draws are
// judged one per processor at once: each child has one thread and plays
// one draw at a time, so running them side by side changes no draw's run.
func (ef exploreFlags) simCampaign(fs *flag.FlagSet, sp explore.Space, runs string) (explore.Campaign, func() error, error) {
	switch {
	case ef.plant != "":
		return explore.Campaign{}, nil, errors.New("--plant is not offered with --cluster sim")
	case ef.fresh:
		return explore.Campaign{}, nil, errors.New("--fresh: every simulated draw has a cluster of its own")
	case ef.save != "":
		return explore.Campaign{}, nil, errors.New("--save with --cluster sim: TestChaosRegressions replays through the runner, which has no sim provider")
	}
	// Each draw's check allocates megabytes it drops at once (a history
	// read, the checkers' tables): collecting less often takes about a
	// third off this process's CPU a draw, which it shares with the
	// children.
	debug.SetGCPercent(400)
	dir := filepath.Join(runs, "explore", "sim")
	bin := filepath.Join(dir, "sim.test")
	if err := sim.BuildChild(context.Background(), bin); err != nil {
		return explore.Campaign{}, nil, err
	}
	pl := sim.NewPlayer(bin)
	judge, err := explore.ClaimJudge(sp.Claim(), simrun.Run(pl, dir))
	if err != nil {
		return explore.Campaign{}, nil, err
	}
	k := 1
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "k" {
			k = ef.k
		}
	})
	return explore.Campaign{Gen: sim.Space(), Space: sp, Seed: ef.seed, Duration: ef.duration, Judge: judge, K: k,
		Shrink: !ef.noShrink, Parallel: runtime.NumCPU()}, pl.Close, nil
}
