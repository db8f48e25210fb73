package kafkachaos_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/runner"
)

// TestChaosRegressions replays every violation `kafkachaos explore --save`
// pinned under testdata/regressions and asserts its verdict: the claim is
// violated again, with every anomaly kind saved. A run is not a function
// of its scenario (timing decides whether a lost ack lands on a retried
// batch), so a replay may take up to the regression's attempts (the
// shrinker's k) runs; it fails only if none shows the verdict. The saved
// scenarios name the embedded cluster, whatever -kafkachaos.cluster says.
func TestChaosRegressions(t *testing.T) {
	parallelOnEmbedded(t)
	regs, err := explore.LoadRegressions(filepath.Join("testdata", "regressions"))
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) == 0 {
		t.Fatal("no regression under testdata/regressions: explore --save pins at least one")
	}
	names := make([]string, 0, len(regs))
	for n := range regs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		r := regs[name]
		t.Run(name, func(t *testing.T) {
			judge, err := explore.RunnerJudge(r.Claim, runner.Options{RunsDir: t.TempDir(), TestName: name})
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			v, err := explore.Replay(context.Background(), r, judge)
			if err != nil {
				t.Fatalf("%s (%s): %v", name, r.Scenario.Name, err)
			}
			t.Logf("%s: violated %s again in %s: observed %s, anomalies %v",
				name, r.Violated, time.Since(began).Round(time.Millisecond), v.Observed, v.Anomalies)
		})
	}
}
