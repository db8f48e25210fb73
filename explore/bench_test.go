package explore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/runner"
)

// BenchmarkFirstViolation is the time a campaign on the embedded cluster
// takes to its first violation with no hint, median over 10 seeds, for the
// weak space and for the safe space with a planted defect (a producer that
// retries without idempotence). Run it with -benchtime=1x: one iteration is
// 20 campaigns.
func BenchmarkFirstViolation(b *testing.B) {
	for _, tc := range []struct {
		name  string
		space Space
		plant Plant
	}{{"weak", SpaceWeak, PlantNone}, {"safe-planted", SpaceSafe, PlantNonIdempotentRetries}} {
		b.Run(tc.name, func(b *testing.B) {
			opts := runner.Options{RunsDir: b.TempDir(), TestName: "bench"}
			judge := PlantedJudge(tc.plant, opts)
			if tc.plant == PlantNone {
				var err error
				if judge, err = RunnerJudge(tc.space.Claim(), opts); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				var firsts []float64
				draws, missed := 0, 0
				for seed := int64(1); seed <= 10; seed++ {
					c := Campaign{Gen: GenSpace("embedded"), Space: tc.space, Seed: seed, Duration: 3 * time.Minute, Judge: judge}
					rep, err := c.Run(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					draws += rep.Draws
					if rep.Found == nil {
						missed++
						continue
					}
					firsts = append(firsts, rep.Found.After.Seconds())
					b.Logf("seed %d: %s after %.1f s, draw %d, %v, breaks %q", seed, tc.name, rep.Found.After.Seconds(),
						rep.Found.Draw, rep.Found.Verdict.Anomalies, rep.Found.Verdict.Breaks)
				}
				slices.Sort(firsts)
				if len(firsts) > 0 {
					b.ReportMetric(firsts[len(firsts)/2], "s-median-to-violation")
				}
				b.ReportMetric(float64(missed), "seeds-without-violation")
				b.ReportMetric(float64(draws), "draws")
			}
		})
	}
}
