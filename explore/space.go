package explore

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Space names which draws a campaign makes and what it claims of them.
type Space string

// Spaces.
const (
	SpaceSafe Space = "safe" // draws with an idempotent acks=all producer, judged by the model
	SpaceWeak Space = "weak" // draws the model calls weak, judged against exactly-once
	SpaceAll  Space = "all"  // every draw, judged by the model
)

// ParseSpace reads a --space value.
func ParseSpace(s string) (Space, error) {
	switch Space(s) {
	case SpaceSafe, SpaceWeak, SpaceAll:
		return Space(s), nil
	}
	return "", fmt.Errorf("space %q: want safe, weak or all", s)
}

// Claim is the guarantee a draw is judged against: ClaimModel is the
// runner's verdict (the model's expectation); a guarantee name claims that
// guarantee end to end.
const ClaimModel = "model"

// Claim is what sp claims of its draws.
func (sp Space) Claim() string {
	if sp == SpaceWeak {
		return model.ExactlyOnce.String()
	}
	return ClaimModel
}

// admits reports whether a draw of s belongs to sp.
func (sp Space) admits(s generators.Scenario) bool {
	p := s.Producer.ProducerConfig
	safeProducer := p.Idempotent() && p.Acks == model.AcksAll
	switch sp {
	case SpaceSafe:
		return safeProducer
	case SpaceWeak:
		c := s.Consumer.CommitStrategy
		return !safeProducer || c == model.CommitBeforeProcessing || c == model.CommitAuto
	}
	return true
}

// GenSpace is the generators' space a campaign on provider draws from:
// the short property-test space with at least one fault a draw.
func GenSpace(provider string) generators.Space {
	sp := generators.ShortSpace()
	sp.Provider, sp.Kinds = provider, generators.KindsFor(provider)
	sp.MinFaults = 1
	return sp
}

// maxRejects bounds the draws skipped looking for one of the space: a
// space of any draw's configuration is found within a few.
const maxRejects = 1000

// Draw is the scenario of draw i of a campaign seeded seed in sp: the
// first scenario from a block of seeds that seed and i own that sp admits;
// the same arguments give the same scenario.
func Draw(gs generators.Space, sp Space, seed int64, i int) (generators.Scenario, error) {
	base := (seed*1_000_003 + int64(i)) * maxRejects
	for j := range int64(maxRejects) {
		s := generators.RandomIn(gs, base+j)
		if sp.admits(s) {
			return s, nil
		}
	}
	return generators.Scenario{}, fmt.Errorf("space %s: no admitted draw in %d tries from seed %d", sp, maxRejects, base)
}
