package sim

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
)

// The simulation builds exactly the kinds the registry says it runs
// (generators.KindsFor("sim")): a claimed kind without a builder would
// fail its draws, a builder for an unclaimed kind is never drawn and
// supported refuses it by hand.
func TestBuildersAreTheSimulatedKinds(t *testing.T) {
	b := builders()
	claimed := generators.KindsFor("sim")
	for _, k := range claimed {
		if b[k] == nil {
			t.Errorf("the simulation claims %s and has no builder for it", k)
		}
	}
	for k := range b {
		if !slices.Contains(claimed, k) {
			t.Errorf("a builder for %s, which the simulation does not claim (KindsFor(\"sim\") is %v)", k, claimed)
		}
	}
}
