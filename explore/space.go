package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

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
	// SpaceTxn is Jepsen's recipe for transactions whose requests outlive
	// their turn (KAFKA-17754): draws with txn queues, half of whose
	// transactions pause between their steps (TxnRecipe), faults aimed at
	// the transaction coordinator and the leader; judged by the model.
	SpaceTxn Space = "txn"
)

// ParseSpace reads a --space value.
func ParseSpace(s string) (Space, error) {
	switch Space(s) {
	case SpaceSafe, SpaceWeak, SpaceAll, SpaceTxn:
		return Space(s), nil
	}
	return "", fmt.Errorf("space %q: want safe, weak, all or txn", s)
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
	case SpaceTxn:
		return s.Workload.TxnQueues > 0
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

// Shape is gs as sp draws from it: the txn space's runs last 20-60 s, as
// Jepsen's do, so that each holds hundreds of transactions and a fault
// with time to recover from; the others draw gs as it is.
func (sp Space) Shape(gs generators.Space) generators.Space {
	if sp == SpaceTxn {
		gs.MinTime, gs.MaxTime = 20*time.Second, time.Minute
	}
	return gs
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
		if !sp.admits(s) {
			continue
		}
		if sp == SpaceTxn {
			s = TxnRecipe(s, rand.New(rand.NewPCG(uint64(base+j), 17)))
		}
		return s, s.Validate()
	}
	return generators.Scenario{}, fmt.Errorf("space %s: no admitted draw in %d tries from seed %d", sp, maxRejects, base)
}

// intraTxnDelays are the pauses TxnRecipe draws from: none (the control
// within the space), and from a few milliseconds to longer than a
// request's round trip under a fault.
func intraTxnDelays() []time.Duration {
	return []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond, time.Second}
}

// TxnRecipe is s in Jepsen's recipe for KAFKA-17754: an intra-transaction
// delay, and on real brokers each kill or pause aimed at the transaction
// coordinator, the leader of key 0 or one broker, drawn from rng. On real
// brokers, half the draws without a delayed-requests fault get one where
// it fits (half of which hold requests past the client's timeout): the
// late arrival is the other half of the recipe, which among a dozen kinds
// a draw met about one time in four, and past the timeout one in twelve.
func TxnRecipe(s generators.Scenario, rng *rand.Rand) generators.Scenario {
	delays := intraTxnDelays()
	s.Workload.IntraTxnDelay = generators.Duration(delays[rng.IntN(len(delays))])
	if p := s.Cluster.Provider; p != "local" && p != "docker" {
		return s // the embedded cluster names no coordinator
	}
	targets := []string{generators.TargetTxnCoordinator, "leader", "one"}
	s.Nemesis = slices.Clone(s.Nemesis)
	for i, f := range s.Nemesis {
		if (f.Kind == generators.KindKill || f.Kind == generators.KindPause) && len(f.Params.Nodes) == 0 {
			s.Nemesis[i].Params.Target = targets[rng.IntN(len(targets))]
		}
	}
	held := slices.ContainsFunc(s.Nemesis, func(f generators.Fault) bool { return f.Kind == generators.KindDelayedRequests })
	if !held && rng.IntN(2) == 0 {
		s = generators.AddDrawn(s, generators.KindDelayedRequests, rng)
	}
	return s
}
