package kafkachaos_test

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster/external/externaltest"
	"github.com/kafkachaos/kafkachaos/runner"
)

// The safe end of the delivery claims on a user's own cluster: the
// brokers are the local provider's (externaltest), but the run knows them
// only through an inventory, and every fault reaches them over SSH (the
// external provider): SIGKILL and the start command, SIGSTOP, nft tables
// on the hosts. acks=all with min.insync.replicas=2 on three replicas and
// an idempotent producer loses nothing and writes nothing twice.
func TestChaosExternalAcksAllIdempotentSafe(t *testing.T) {
	p := requireReal(t, "local")
	externaltest.Require(t)
	hosts := externaltest.Start(t.Context(), t)
	p.providers = runner.DefaultProviders().WithInventory(hosts.Inventory)
	s := realScenario("external-acksall-idempotent", p)
	s.Cluster.Provider = "external"
	s.Workload.Consumers = 1
	s.Nemesis = singleNodeFaults(s)
	expectSafe(t, p, s, "external cluster, faults over SSH: acks=all, min.insync.replicas=2, RF 3, idempotent: no loss, no duplicate",
		50, checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets)
}
