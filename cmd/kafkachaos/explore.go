package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/runner"
)

// exploreFlags are `kafkachaos explore`'s flags.
type exploreFlags struct {
	cluster, space, save, runs, regressions, plant, shard, out, client string
	inventory                                                          string
	duration                                                           time.Duration
	seed                                                               int64
	k, draws                                                           int
	noShrink, quiet, fresh                                             bool
}

func (f *exploreFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.cluster, "cluster", "embedded", "cluster provider every draw runs on: embedded, local, docker or external (with --inventory); sim plays each draw in virtual time (kfake and franz-go in a synctest bubble; needs the Go toolchain, run from the module)")
	fs.StringVar(&f.inventory, "inventory", "", inventoryUsage)
	fs.DurationVar(&f.duration, "duration", 5*time.Minute, "draw until this much time has passed or a draw violates its claim")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the draws (the same seed draws the same scenarios)")
	fs.StringVar(&f.space, "space", "safe", "safe (idempotent acks=all producers, judged by the model), weak (configurations the model calls weak, judged against exactly-once) all (judged by the model) or txn (txn queues in Jepsen's recipe: intra-transaction delays, faults on the transaction coordinator; judged by the model)")
	fs.StringVar(&f.client, "client", "", "client under test of every draw, NAME[@VERSION] as run's --client (the roles it does not run stay librdkafka); the draws' own, librdkafka, by default; not with --cluster sim")
	fs.StringVar(&f.save, "save", "", "save the shrunk violation as REGRESSIONS/NAME.json, replayed by TestChaosRegressions")
	fs.StringVar(&f.regressions, "regressions", filepath.Join("testdata", "regressions"), "directory --save writes to")
	fs.StringVar(&f.runs, "runs", "", "runs root (default $KAFKACHAOS_RUNS, else runs/ in the module root)")
	fs.IntVar(&f.k, "k", explore.DefaultK, "runs that judge each shrink candidate (failing if any fails)")
	fs.BoolVar(&f.noShrink, "no-shrink", false, "stop at the violation as drawn")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fs.StringVar(&f.plant, "plant", "", "run every draw with a known defect ("+string(explore.PlantNonIdempotentRetries)+") while judging it by the model's expectation of the draw as drawn: how quickly a space that should hold shows a planted bug (safe or all spaces; not with --save)")
	fs.StringVar(&f.shard, "shard", "1/1", "make shard I/N of the campaign's draws: draws I-1, I-1+N, I-1+2N, ... of its seed, so that N shards (on N machines) never make the same draw; `kafkachaos merge` joins their outputs")
	fs.IntVar(&f.draws, "draws", 0, "bound the campaign by draws instead of --duration: judge draws 0..N-1 (those of --shard), past violations; N shards of --draws N make exactly the draws of the unsharded campaign")
	fs.StringVar(&f.out, "out", "", "campaign output directory: "+explore.OutputFile+", "+explore.ReportFile+", a shrink's minimal.json and shrink.log (default RUNS/explore/seedS[-shardIofN]-TIME)")
	fs.BoolVar(&f.fresh, "fresh", false, "start a cluster for every draw; by default draws on local and docker share one running cluster (topics of their own, health checked between draws, replaced when a draw left it unhealthy or asks for other brokers)")
}

// exploreCmd is `kafkachaos explore`: draw scenarios until the duration
// ends or one violates its space's claim, shrink it, optionally save it as
// a regression; then print the coverage table. Exit 0 when nothing was
// violated, 1 when a draw was, 2 on bad flags or harness errors only.
func exploreCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef exploreFlags
	ef.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos explore --cluster embedded|local|docker|external|sim [--inventory FILE] --duration D|--draws N [--seed S] [--space safe|weak|all|txn] [--client NAME[@VERSION]] [--shard I/N] [--out DIR] [--save NAME]")
		fmt.Fprintln(stderr, "exit status: 0 no violation, 1 a draw violated its claim, 2 bad flags or only harness errors")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	reuse := ef.reuse()
	c, end, err := ef.campaign(fs, stderr, reuse)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos explore:", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := c.Run(ctx)
	err = errors.Join(err, end())
	if reuse != nil {
		err = errors.Join(err, reuse.Close(context.Background()))
	}
	err = errors.Join(err, writeExplore(stdout, c, rep))
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos explore:", err)
		return exitError
	}
	if rep.Found == nil {
		if rep.Draws == rep.Errors && rep.Errors > 0 {
			fmt.Fprintln(stderr, "kafkachaos explore: every draw failed:", rep.LastError)
			return exitError
		}
		return exitValid
	}
	if ef.save != "" {
		return saveFound(stdout, stderr, ef, c, rep)
	}
	return exitInvalid
}

// reuse is the cluster the draws share: on real clusters, whose start
// costs 13-65 s a draw, unless --fresh; none on the embedded one, which
// starts in milliseconds.
func (ef exploreFlags) reuse() *runner.Reuse {
	if ef.fresh || ef.cluster == "embedded" || ef.cluster == simCluster {
		return nil
	}
	return &runner.Reuse{Root: ef.runs, Name: "explore-clusters", HealBudget: runner.KindHealBudget}
}

// campaign checks the flags and builds the campaign they describe; end
// ends what the campaign's judge keeps running (the simulation's child
// processes), once the campaign is over.
func (ef exploreFlags) campaign(fs *flag.FlagSet, stderr io.Writer, reuse *runner.Reuse) (c explore.Campaign, end func() error, err error) {
	if fs.NArg() > 0 {
		return explore.Campaign{}, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	sp, err := explore.ParseSpace(ef.space)
	if err != nil {
		return explore.Campaign{}, nil, fmt.Errorf("--space: %w", err)
	}
	providers := runner.DefaultProviders()
	switch {
	case ef.cluster != simCluster && providers[ef.cluster] == nil:
		return explore.Campaign{}, nil, fmt.Errorf("--cluster %q: want %s or one of %s", ef.cluster, simCluster,
			strings.Join(slices.Sorted(maps.Keys(providers)), ", "))
	case ef.duration <= 0 || ef.k < 1:
		return explore.Campaign{}, nil, fmt.Errorf("--duration %v, --k %d: want a positive duration and k >= 1", ef.duration, ef.k)
	case ef.save != "" && ef.noShrink:
		return explore.Campaign{}, nil, fmt.Errorf("--save pins a shrunk violation; it cannot go with --no-shrink")
	case ef.client != "" && ef.cluster == simCluster:
		return explore.Campaign{}, nil, fmt.Errorf("--client %q: the simulation runs franz-go only", ef.client)
	}
	if err := explore.CheckClient(ef.client); err != nil {
		return explore.Campaign{}, nil, fmt.Errorf("--client: %w", err)
	}
	shard, err := ef.bounds(fs)
	if err != nil {
		return explore.Campaign{}, nil, err
	}
	runs := runner.RunsRoot(ef.runs)
	end = func() error { return nil }
	if ef.cluster == simCluster {
		if c, end, err = ef.simCampaign(fs, sp, runs); err != nil {
			return explore.Campaign{}, nil, err
		}
	} else {
		provs, err := providersFor(ef.cluster, ef.inventory)
		if err != nil {
			return explore.Campaign{}, nil, err
		}
		judge, err := ef.judge(sp, runner.Options{RunsDir: runs, TestName: "explore", Reuse: reuse, Providers: provs})
		if err != nil {
			return explore.Campaign{}, nil, err
		}
		gs := sp.Shape(explore.GenSpace(ef.cluster))
		if gs.Kinds, err = drawableKinds(context.Background(), ef.cluster, ef.inventory); err != nil {
			return explore.Campaign{}, nil, err
		}
		gs.Shared = reuse != nil
		c = explore.Campaign{Gen: gs, Space: sp, Seed: ef.seed, Duration: ef.duration,
			Judge: judge, K: ef.k, Shrink: !ef.noShrink}
		if reuse != nil {
			c.Clusters = reuse.Started
		}
	}
	c.Shard, c.Draws, c.OutDir, c.Client = shard, ef.draws, ef.outDir(runs, shard), ef.client
	if !ef.quiet {
		c.Progress, c.TTY = stderr, isTerminal(stderr)
	}
	return c, end, nil
}

// judge judges by the model or the space's claim, or with --plant by the
// model's expectation of each draw as drawn.
func (ef exploreFlags) judge(sp explore.Space, opts runner.Options) (explore.Judge, error) {
	plant, err := explore.ParsePlant(ef.plant)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--plant: %w", err)
	case plant == explore.PlantNone:
		return explore.RunnerJudge(sp.Claim(), opts)
	case sp.Claim() != explore.ClaimModel:
		return nil, fmt.Errorf("--plant with --space %s: a planted draw is judged by the model; use safe or all", sp)
	case ef.save != "":
		return nil, errors.New("--plant cannot go with --save: a saved regression replays without the plant")
	}
	return explore.PlantedJudge(plant, opts), nil
}

// bounds checks --shard and --draws, which bounds the campaign in place
// of --duration.
func (ef exploreFlags) bounds(fs *flag.FlagSet) (explore.Shard, error) {
	shard, err := explore.ParseShard(ef.shard)
	if err != nil {
		return shard, fmt.Errorf("--shard: %w", err)
	}
	durationSet := false
	fs.Visit(func(f *flag.Flag) { durationSet = durationSet || f.Name == "duration" })
	switch {
	case ef.draws < 0:
		return shard, fmt.Errorf("--draws %d: want a positive count", ef.draws)
	case ef.draws > 0 && durationSet:
		return shard, errors.New("--draws and --duration: a campaign is bounded by one of them")
	}
	return shard, nil
}

// outDir is --out, or a directory of its own under runs.
func (ef exploreFlags) outDir(runs string, shard explore.Shard) string {
	if ef.out != "" {
		return ef.out
	}
	name := fmt.Sprintf("seed%d", ef.seed)
	if shard.N > 1 {
		name += fmt.Sprintf("-shard%dof%d", shard.I, shard.N)
	}
	return filepath.Join(runs, "explore", name+"-"+time.Now().UTC().Format("20060102T150405"))
}

// writeExplore prints the campaign's report and saves its output.
func writeExplore(w io.Writer, c explore.Campaign, rep explore.Report) error {
	o := explore.NewOutput(c, rep)
	o.Write(w)
	if err := o.Save(c.OutDir); err != nil {
		return fmt.Errorf("campaign output: %w", err)
	}
	fmt.Fprintln(w, "campaign output:", c.OutDir)
	return nil
}

func saveFound(stdout, stderr io.Writer, ef exploreFlags, c explore.Campaign, rep explore.Report) int {
	sh := rep.Shrunk
	if sh == nil {
		fmt.Fprintln(stderr, "kafkachaos explore: --save: the violation was not shrunk")
		return exitError
	}
	r := explore.NewRegression(c.Space.Claim(), sh.Scenario, sh.Verdict, c.K)
	path, err := explore.SaveRegression(ef.regressions, ef.save, r)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos explore: --save:", err)
		return exitError
	}
	fmt.Fprintln(stdout, "saved regression:", path)
	return exitInvalid
}
