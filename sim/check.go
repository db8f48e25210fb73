package sim

import (
	"bytes"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// Verdict is a played draw judged as runner judges a run: the checkers'
// result, the guarantee the model expects and the one observed, and
// whether the first holds.
type Verdict struct {
	Result   checkers.Result
	Expected model.Expectation
	Observed model.Observation
	Held     bool
}

// maxCases bounds the cases kept per anomaly; counts stay exact.
const maxCases = 20

// Check judges a played draw of s. An error is an unreadable history or a
// configuration the model rejects, never a verdict.
func Check(s generators.Scenario, p Played) (Verdict, error) {
	exp, err := model.ExpectedUnder(s.Conditions(), s.Producer.ProducerConfig, s.Topic, s.Consumer.ConsumerConfig)
	if err != nil {
		return Verdict{}, err
	}
	var ops []histories.Op
	err = histories.NewReader(bytes.NewReader(p.History), s.Name).Scan(func(op *histories.Op) error {
		ops = append(ops, *op.Clone())
		return nil
	})
	if err != nil {
		return Verdict{}, err
	}
	res, err := checkers.Check(histories.FromOps(ops), checkers.Options{MaxCases: maxCases})
	if err != nil {
		return Verdict{}, err
	}
	obs := model.Observe(res)
	return Verdict{Result: res, Expected: exp, Observed: obs, Held: exp.HeldBy(obs)}, nil
}
