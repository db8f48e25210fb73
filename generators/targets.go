package generators

import "slices"

// Fault targets (Params.Target), as nemesis.Target spells them: which
// brokers a real-broker fault acts on.
const (
	TargetReplicas = "replicas" // every replica of key 0's partition (power-loss)
	// TargetTxnCoordinator and TargetGroupCoordinator name the broker that
	// coordinates the run's first transactional id and its consumer group
	// (Scenario.Coordinated), as found when the fault starts.
	TargetTxnCoordinator   = "txn-coordinator"
	TargetGroupCoordinator = "group-coordinator"
)

// realTargets are the targets a kind takes unless it names its own
// (Kind.targets).
func realTargets() []string {
	return []string{"one", "leader", "controller", "minority", "majority", "all"}
}

// roleTargets are the targets by role the kinds that take realTargets take
// too, never drawn: a workload has them only sometimes.
func roleTargets() []string { return []string{TargetTxnCoordinator, TargetGroupCoordinator} }

// checkTarget checks Params.Target against the targets f's kind takes,
// that it is not given with Params.Nodes, and that s has what a role
// target names.
func checkTarget(k Kind, f Fault, field string, s *Scenario) error {
	t := f.Params.Target
	if t == "" {
		return nil
	}
	allowed := k.targets
	if allowed == nil {
		allowed = append(realTargets(), roleTargets()...)
	}
	if !slices.Contains(allowed, t) {
		if t == TargetReplicas {
			return bad(field+".params.target", "%s is a power-loss target (kind %s)", TargetReplicas, f.Kind)
		}
		return bad(field+".params.target", "%q is not one of %v", t, allowed)
	}
	if len(f.Params.Nodes) > 0 {
		return bad(field+".params", "target %q and nodes %v: give one or the other", t, f.Params.Nodes)
	}
	txnID, group := s.Coordinated()
	switch {
	case t == TargetTxnCoordinator && txnID == "":
		return bad(field+".params.target", "%s: the workload has no transactional producer (txn-queues or transactional copiers)", t)
	case t == TargetGroupCoordinator && group == "":
		return bad(field+".params.target", "%s: the workload has no consumer group (group consumers or copiers)", t)
	}
	return nil
}

// pickTarget is a draw's target among options, the simplest first.
func pickTarget(options ...string) func(drawer, func(string) string, Scenario) FaultParams {
	return func(d drawer, label func(string) string, _ Scenario) FaultParams {
		return FaultParams{Target: d.pick(label("target"), options)}
	}
}
