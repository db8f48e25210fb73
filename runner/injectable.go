package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// UnsupportedFault is a scenario fault the provider cannot inject: a run
// without the faults its scenario names would prove nothing.
type UnsupportedFault struct {
	Index      int // in the scenario's nemesis list
	Kind       string
	Capability cluster.Capability
	Provider   string
}

func (e *UnsupportedFault) Error() string {
	return fmt.Sprintf("nemesis[%d]: %s needs capability %q, which cluster provider %q lacks",
		e.Index, e.Kind, e.Capability, e.Provider)
}

// Injectable checks, before prov starts, the faults of s whose capability
// does not depend on Start (cluster.KnownBeforeStart): a scenario asking a
// real cluster for lost acknowledgements fails at once, not after a minute
// of broker start-up. The first fault prov cannot inject comes back as an
// *UnsupportedFault, a field that needs a newer Kafka than prov runs as an
// *OldKafka (kafka_version.go). The other capabilities are checked once
// prov has started, when the schedule is built.
func Injectable(prov cluster.Provider, s generators.Scenario) error {
	if err := unsupported(prov, s, cluster.KnownBeforeStart); err != nil {
		return err
	}
	return kafkaFits(prov, s)
}

// unsupported is the first fault of s that needs a capability which, among
// those asked, prov lacks.
func unsupported(prov cluster.Provider, s generators.Scenario, ask func(cluster.Capability) bool) error {
	for i, f := range s.Nemesis {
		c := cluster.Capability(generators.KindCapability(f.Kind))
		if c != "" && ask(c) && !cluster.Supports(prov, c) {
			return &UnsupportedFault{Index: i, Kind: f.Kind, Capability: c, Provider: prov.Name()}
		}
	}
	return nil
}
