package chaostest

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/runner"
	"pgregory.net/rapid"
)

// FaultsGen draws fault schedules for a run with opts, as the harness's
// own property tests draw them (generators.NemesisGen): kinds the cluster
// supports, each placed where it can take effect in the run, one to three,
// shrinking to shorter schedules. Use it in rapid.Check, or take one
// schedule by seed with Example.
func FaultsGen(opts Options) *rapid.Generator[[]Fault] {
	o := opts.withDefaults()
	s := scenario(o, "draw")
	sp := generators.ShortSpace()
	sp.Provider, sp.Brokers, sp.MinFaults, sp.MaxFaults = o.Cluster, o.Brokers, 1, 3
	// no client kind the code under test has no builder for (churn makes
	// a member of the harness's own group leave: the code has none)
	sp.Kinds = slices.DeleteFunc(drawableKinds(o), func(k string) bool { return !buildable(k) })
	return generators.NemesisGen(sp, s)
}

// drawableKinds is the kinds the cluster opts name runs on this machine
// (runner.DrawableKinds: no clock or disk faults without their tools).
func drawableKinds(o Options) []string {
	prov, err := provider(o)
	if err != nil {
		return generators.KindsFor(o.Cluster)
	}
	return runner.DrawableKinds(prov)
}
