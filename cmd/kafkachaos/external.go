package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/external"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/runner"
)

// inventoryUsage is the help of --inventory on run, explore and clean.
const inventoryUsage = "inventory (YAML or JSON) of the hosts of your own cluster, driven over SSH by --cluster external; see docs/USAGE.md, \"Your own cluster\""

// providersFor is the providers a run may use: the default ones, with the
// external one reading inventory when it is given. An inventory goes with
// --cluster external alone, and --cluster external needs one.
func providersFor(clusterName, inventory string) (runner.Providers, error) {
	switch {
	case inventory == "" && clusterName == "external":
		return nil, fmt.Errorf("--cluster external needs --inventory FILE (the hosts of your cluster)")
	case inventory == "":
		return runner.DefaultProviders(), nil
	case clusterName != "external":
		return nil, fmt.Errorf("--inventory describes an external cluster; it needs --cluster external, not %q", clusterName)
	}
	return runner.DefaultProviders().WithInventory(inventory), nil
}

// externalKinds is the fault kinds a random draw on the inventory's
// cluster takes: those of the external provider whose capability every
// host offers, as probed over SSH now.
func externalKinds(ctx context.Context, inventory string) ([]string, error) {
	inv, err := external.Load(inventory)
	if err != nil {
		return nil, err
	}
	caps, err := external.Probe(ctx, inv)
	if err != nil {
		return nil, err
	}
	return offered(generators.KindsFor("external"), caps), nil
}

// offered keeps the kinds that need no capability or one of caps.
func offered(kinds []string, caps []cluster.Capability) []string {
	return slices.DeleteFunc(slices.Clone(kinds), func(k string) bool {
		c := generators.KindCapability(k)
		return c != "" && !slices.Contains(caps, c)
	})
}
