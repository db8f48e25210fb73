package runner

import (
	"errors"
	"fmt"
	"maps"
	"sort"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/external"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// Providers makes cluster providers by name, so that a scenario's
// cluster.provider picks one and real-broker providers plug in next to the
// embedded one.
type Providers map[string]func() (cluster.Provider, error)

// DefaultProviders has the providers built into this module: "embedded",
// "local" (real Kafka processes, see cluster/local), "docker" (real Kafka
// in containers, see cluster/docker) and "external" (the user's own
// cluster over SSH, see cluster/external), which needs WithInventory.
func DefaultProviders() Providers {
	return Providers{
		"embedded": func() (cluster.Provider, error) { return embedded.New(), nil },
		"local":    func() (cluster.Provider, error) { return local.New(local.Options{}), nil },
		"docker":   newDocker,
		"external": func() (cluster.Provider, error) { return nil, errNoInventory },
	}
}

// errNoInventory is the "external" provider's error where no inventory
// was given (WithInventory).
var errNoInventory = errors.New(`cluster provider "external" needs an inventory of the cluster's hosts (--inventory FILE)`)

// WithInventory is p with the "external" provider driving the cluster the
// inventory at path describes (see cluster/external).
func (p Providers) WithInventory(path string) Providers {
	q := maps.Clone(p)
	q["external"] = func() (cluster.Provider, error) { return external.Open(path, nil) }
	return q
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
