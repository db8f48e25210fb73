package runner

import (
	"fmt"
	"sort"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// Providers makes cluster providers by name, so that a scenario's
// cluster.provider picks one and real-broker providers plug in next to the
// embedded one.
type Providers map[string]func() (cluster.Provider, error)

// DefaultProviders has the providers built into this module: "embedded",
// "local" (real Kafka processes, see cluster/local) and "docker" (real Kafka
// in containers, see cluster/docker).
func DefaultProviders() Providers {
	return Providers{
		"embedded": func() (cluster.Provider, error) { return embedded.New(), nil },
		"local":    func() (cluster.Provider, error) { return local.New(local.Options{}), nil },
		"docker":   newDocker,
	}
}

// New makes the provider called name.
func (p Providers) New(name string) (cluster.Provider, error) {
	mk, ok := p[name]
	if !ok {
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("cluster provider %q is not registered (have %v)", name, names)
	}
	return mk()
}
