package explore

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Plant is a known defect put into every draw as it runs while the draw is
// still judged by what the model expects of it as drawn. It measures how
// quickly a campaign finds a bug in a space that should hold: the safe space
// with a planted defect is a space with one real violation in it, and
// nothing tells the draws where.
type Plant string

// Plants.
const (
	PlantNone Plant = ""
	// PlantNonIdempotentRetries runs the producer with idempotence off and
	// its retries left on, as a client that silently dropped
	// enable.idempotence would: a lost acknowledgement then duplicates a
	// record the model expects the broker to deduplicate. Transactional
	// producers cannot drop it and run as drawn.
	PlantNonIdempotentRetries Plant = "non-idempotent-retries"
)

// ParsePlant reads a --plant value.
func ParsePlant(s string) (Plant, error) {
	switch Plant(s) {
	case PlantNone, PlantNonIdempotentRetries:
		return Plant(s), nil
	}
	return "", fmt.Errorf("plant %q: want %s or nothing", s, PlantNonIdempotentRetries)
}

// apply is s as it runs with p planted.
func (p Plant) apply(s generators.Scenario) generators.Scenario {
	if p == PlantNonIdempotentRetries && !s.Producer.Transactional() {
		s.Producer.EnableIdempotence = false
	}
	return s
}

// PlantedJudge judges each draw by runner.Run of the draw with p planted,
// against the model's expectation of the draw as drawn, hop by hop. The
// shrinker and the regressions see the draw as drawn; a regression saved
// from a planted campaign would replay without the plant, so the command
// line does not offer --save with --plant.
func PlantedJudge(p Plant, opts runner.Options) Judge {
	return runJudge(runnerRun(opts), p.apply, func(s generators.Scenario, out runner.Outcome) (Verdict, error) {
		exp, err := runner.Expected(s)
		if err != nil {
			return Verdict{}, fmt.Errorf("plant %s: %w", p, err)
		}
		v := verdictOf(out, ClaimModel, model.None)
		v.Expected, v.Breaks = exp.EndToEnd.String(), exp.Breaks(out.Observed)
		v.Violated = len(v.Breaks) > 0
		return v, nil
	})
}
