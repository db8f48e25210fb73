package generators

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Equip is c with every cluster feature a fault of kinds may ask for:
// the clients' proxies (proxy kinds), lazyfs disks (disk kinds), movable
// clocks (clock kinds) and a dynamic controller quorum (quorum kinds),
// where c's provider has them. Draws that share one running cluster
// (Space.Shared) get it, so that whichever of kinds a draw holds, the
// cluster already serves it; the saved scenario says so, and its replay
// starts the same cluster. The brokers' replication proxies are left as
// drawn: they refuse the cuts by address that other draws hold.
func Equip(c Cluster, kinds []string) Cluster {
	has := providerCaps(c.Provider)
	for _, k := range kinds {
		capability := KindCapability(k)
		if !slices.Contains(has, capability) {
			continue
		}
		switch capability {
		case cluster.CapProxy:
			c.ClientProxies = true
		case cluster.CapDisk:
			c.LazyDisks = true
		case cluster.CapClock:
			c.Clocks = true
		case cluster.CapQuorum:
			c.DynamicQuorum = true
		}
	}
	return c
}

// validateFeatures refuses a feature c's provider cannot give its
// brokers. Providers outside the harness's table (an external cluster)
// have none of them.
func (c Cluster) validateFeatures() error {
	has := providerCaps(c.Provider)
	for _, f := range []struct {
		set   bool
		field string
		needs cluster.Capability
	}{
		{c.ClientProxies, "cluster.client-proxies", cluster.CapProxy},
		{c.LazyDisks, "cluster.lazy-disks", cluster.CapDisk},
		{c.Clocks, "cluster.clocks", cluster.CapClock},
	} {
		if f.set && !slices.Contains(has, f.needs) {
			return bad(f.field, "the %s provider has no %s capability to give its brokers", c.Provider, f.needs)
		}
	}
	return nil
}
