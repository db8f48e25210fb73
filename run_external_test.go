package kafkachaos_test

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster/external/externaltest"
	"github.com/kafkachaos/kafkachaos/generators"
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
	s.Nemesis = externalFaults(s)
	expectSafe(t, p, s, "external cluster, faults over SSH: acks=all, min.insync.replicas=2, RF 3, idempotent: no loss, no duplicate",
		50, checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets)
}

// externalFaults are singleNodeFaults with the kill last: its heal (the
// start command over SSH, the JVM's start, the broker's registration) is
// the slow one, up to 18 s on loaded cores, and a schedule waits for each
// heal before the next fault, so a kill first could push the partition
// past the run's end. Last, its heal may run past the end: the run heals
// it then, and it has fired.
func externalFaults(s generators.Scenario) []generators.Fault {
	return []generators.Fault{
		faultAt(s, generators.KindPause, "leader", 0.05, 0.2),
		faultAt(s, generators.KindIsolateLeader, "", 0.25, 0.45),
		faultAt(s, generators.KindPartition, "", 0.5, 0.65), // random halves
		faultAt(s, generators.KindKill, "leader", 0.7, 0.85),
	}
}
