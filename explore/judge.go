package explore

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/counts"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Verdict is what one run of a scenario showed, against a claim.
type Verdict struct {
	Violated bool
	// NotLive says why the run was not live (checkers.Liveness: the
	// cluster stayed unhealthy after a heal, or a kind of op never came
	// back); "" when it was. It does not make the run a violation: the
	// campaign goes on and lists the draw.
	NotLive string
	// Expected is the claimed guarantee, Observed the one the run showed.
	Expected, Observed string
	// Breaks say hop by hop where a draw judged by the model broke it
	// (model.Expectation.Breaks); a hop can break while the end-to-end
	// guarantees satisfy each other.
	Breaks []string
	// Anomalies are the loss and duplication anomalies that decided it
	// (order-only ones do not change a guarantee), sorted.
	Anomalies []string
	// Dir is the run directory, kept when Violated.
	Dir         string
	FaultsFired int64
	// Simulated is how long the run took in virtual time, on the
	// simulation; 0 on a real cluster.
	Simulated time.Duration
	// Kinds are the fault kinds scheduled.
	Kinds []string
	// LateRequests are the run's transaction requests still unanswered
	// when their transaction ended, by API and answer
	// (runner.Stats.LateRequests).
	LateRequests counts.Counts
}

// Judge runs a scenario once and says whether it violated its claim; an
// error is a harness failure, never a verdict.
type Judge func(ctx context.Context, s generators.Scenario) (Verdict, error)

// Run makes one run of a scenario and keeps its directory: runner.Run,
// or another maker of the same Outcome (the simulation).
type Run func(ctx context.Context, s generators.Scenario) (runner.Outcome, error)

// RunnerJudge judges by runner.Run against claim (ClaimModel or a
// guarantee name), writing run directories under runs/test. Directories of
// runs that held are removed.
func RunnerJudge(claim string, opts runner.Options) (Judge, error) {
	return ClaimJudge(claim, runnerRun(opts))
}

// ClaimJudge judges the runs run makes against claim, as RunnerJudge
// does.
func ClaimJudge(claim string, run Run) (Judge, error) {
	var want model.Guarantee
	if claim != ClaimModel {
		g, err := model.ParseGuarantee(claim)
		if err != nil {
			return nil, err
		}
		want = g
	}
	return runJudge(run, func(s generators.Scenario) generators.Scenario { return s },
		func(_ generators.Scenario, out runner.Outcome) (Verdict, error) {
			return verdictOf(out, claim, want), nil
		}), nil
}

// runnerRun runs by runner.Run, keeping every run directory.
func runnerRun(opts runner.Options) Run {
	return func(ctx context.Context, s generators.Scenario) (runner.Outcome, error) {
		o := opts
		o.Keep = true // a run that holds its model verdict may still violate the claim
		return runner.Run(ctx, s, o)
	}
}

// runJudge is a Judge that runs as(s) by run and lets decide judge the
// outcome; the directories of runs that did not violate are removed.
func runJudge(run Run, as func(generators.Scenario) generators.Scenario,
	decide func(s generators.Scenario, out runner.Outcome) (Verdict, error)) Judge {
	return func(ctx context.Context, s generators.Scenario) (Verdict, error) {
		out, err := run(ctx, as(s))
		if err != nil {
			return Verdict{Dir: out.Dir}, err
		}
		v, err := decide(s, out)
		if err != nil || (!v.Violated && v.NotLive == "") {
			os.RemoveAll(out.Dir)
			v.Dir = ""
		}
		return v, err
	}
}

func verdictOf(out runner.Outcome, claim string, want model.Guarantee) Verdict {
	v := Verdict{Observed: out.Observed.EndToEnd.String(), Dir: out.Dir, FaultsFired: out.Stats.FaultsFired, Simulated: out.Simulated,
		NotLive: strings.Join(out.Result.Liveness.NotLiveReasons(), "; "), LateRequests: out.Stats.LateRequests}
	for _, f := range out.Scenario.Nemesis {
		v.Kinds = append(v.Kinds, f.Kind)
	}
	for _, a := range append(slices.Clone(out.Observed.Loss), out.Observed.Duplication...) {
		v.Anomalies = append(v.Anomalies, string(a))
	}
	slices.Sort(v.Anomalies)
	v.Anomalies = slices.Compact(v.Anomalies)
	if claim == ClaimModel {
		v.Expected, v.Violated, v.Breaks = out.Expected.EndToEnd.String(), !out.Held, out.Expected.Breaks(out.Observed)
		return v
	}
	v.Expected = want.String()
	v.Violated = !model.Satisfies(out.Observed.EndToEnd, want)
	return v
}
