package groundtruth

import (
	"math/rand/v2"

	"pgregory.net/rapid"
)

// Chooser makes every decision of a simulation. Choice 0 is always the
// simplest option (ok outcome, no crash, first key), so that rapid, which
// shrinks draws toward 0, shrinks failing histories toward plain ones.
type Chooser interface {
	// Intn returns a number in [0, n); n >= 1.
	Intn(n int) int
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) Intn(n int) int { return c.r.IntN(n) }

// newRandChooser returns a deterministic chooser for seed.
func newRandChooser(seed int64) Chooser {
	return randChooser{rand.New(rand.NewPCG(uint64(seed), 0x6b61666b61))}
}

type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) Intn(n int) int {
	if n == 1 {
		return 0 // no draw: keeps the choice sequence short for shrinking
	}
	return rapid.IntRange(0, n-1).Draw(c.t, "choice")
}

// RapidChooser makes decisions with rapid draws, so that property tests can
// have Inject's choices shrink along with the history.
func RapidChooser(t *rapid.T) Chooser { return rapidChooser{t} }
