package generators

import (
	"math/rand/v2"

	"pgregory.net/rapid"
)

// drawer is where random choices come from: rapid (for property tests,
// which records them to shrink) or a seeded PRNG (for long runs). One
// scenario builder serves both, so the two generators cannot drift apart.
//
// Every method's smallest result is its simplest: rapid shrinks towards
// lo, false and the first option.
type drawer interface {
	intRange(label string, lo, hi int) int
	boolean(label string) bool
	pick(label string, options []string) string
}

type rapidDrawer struct{ t *rapid.T }

func (d rapidDrawer) intRange(label string, lo, hi int) int {
	return rapid.IntRange(lo, hi).Draw(d.t, label)
}

func (d rapidDrawer) boolean(label string) bool { return rapid.Bool().Draw(d.t, label) }

func (d rapidDrawer) pick(label string, options []string) string {
	return rapid.SampledFrom(options).Draw(d.t, label)
}

type randDrawer struct{ r *rand.Rand }

func (d randDrawer) intRange(_ string, lo, hi int) int { return lo + d.r.IntN(hi-lo+1) }

func (d randDrawer) boolean(string) bool { return d.r.IntN(2) == 1 }

func (d randDrawer) pick(_ string, options []string) string { return options[d.r.IntN(len(options))] }
