package sim

import "github.com/kafkachaos/kafkachaos/generators"

// Space is the scenario space of the simulation: the fast random space
// on provider "sim" (kfake's fault kinds), without copiers or txn queues,
// which the simulation does not run yet (supported refuses them).
func Space() generators.Space {
	sp := generators.FastSpace()
	sp.Provider, sp.Kinds, sp.MaxCopiers, sp.MaxTxnQueues = "sim", generators.KindsFor("sim"), 0, 0
	return sp
}
