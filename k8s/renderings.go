package k8s

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
)

// rendering is how faults of one kind become a Chaos Mesh step: chaos
// fills in the step's type and spec and says how the experiment differs
// from the harness's own fault of the kind, or fails with the reason it
// cannot express this fault's parameters; a kind Chaos Mesh cannot
// express at all has no chaos, and the reason.
type rendering struct {
	chaos  func(f generators.Fault, e env) (Template, []string, error)
	reason string
}

// renderings is every kind that acts on the cluster, by name. A kind that
// needs no cluster capability acts on the harness's own clients, so the
// harness plays it (harnessKind); a kind in neither is reported as one
// this package does not know.
func renderings() map[string]rendering {
	return map[string]rendering{
		generators.KindKill:          {chaos: killStep},
		generators.KindCleanRestart:  {chaos: cleanRestartStep},
		generators.KindPartition:     {chaos: partitionStep},
		generators.KindIsolateLeader: {chaos: isolateLeaderStep},
		generators.KindCutClients:    {chaos: cutClientsStep},
		generators.KindPacketLoss:    {chaos: packetLossStep},
		generators.KindSlowLink:      {chaos: slowLinkStep},
		generators.KindLatency:       {chaos: latencyStep},
		generators.KindClockSkew:     {chaos: clockSkewStep},
		generators.KindDiskFault:     {chaos: diskFaultStep},

		generators.KindLostAck: {reason: insideBroker},
		generators.KindDelay:   {reason: insideBroker},
		generators.KindDrop:    {reason: insideBroker},
		generators.KindDelayedRequests: {reason: "holds chosen Kafka requests (by API) in the harness's proxies; " +
			"NetworkChaos acts on packets and cannot tell one Kafka request from another"},
		generators.KindIsolateLeaderReplication: {reason: "cuts one listener (the brokers' replication port) and keeps the " +
			"clients' listener; a NetworkChaos partition cuts all traffic between two pods"},
		generators.KindBridge: {reason: "needs two sides of named brokers joined through one broker that is on both; " +
			"Chaos Mesh selectors pick pods at random and cannot name the complement of their pick"},
		generators.KindPause: {reason: "freezes the broker's processes (SIGSTOP) with their connections open; " +
			"PodChaos can only kill a pod or replace its containers, which a client sees as a restart"},
		generators.KindPowerLoss: {reason: "forgets the writes a broker never fsynced (lazyfs) before it restarts; " +
			"IOChaos fails or delays file operations but never drops data already written"},
		generators.KindRollingRestart: {reason: "restarts every broker in turn, waiting for each; on Strimzi that is " +
			"the operator's rolling update (annotate the pods' StrimziPodSet with strimzi.io/manual-rolling-update=true)"},
		generators.KindLeaderShuffle: {reason: adminOperation},
		generators.KindReassign:      {reason: adminOperation},
		generators.KindRemoveBroker:  {reason: adminOperation},
		generators.KindAddBroker:     {reason: adminOperation},
		generators.KindRemoveVoter:   {reason: adminOperation},
	}
}

// Reasons shared by several kinds.
const (
	insideBroker = "acts inside the broker's request handling (the embedded cluster's hooks); " +
		"Chaos Mesh acts on pods, packets, clocks and files, never on one Kafka request"
	adminOperation = "a Kafka admin operation (leader election, reassignment, broker or voter membership), " +
		"not a fault Chaos Mesh injects; on Strimzi, KafkaRebalance and node pool scaling do these"
)

// harnessKind reports whether k acts on the harness's own clients (it
// needs no cluster capability), which the harness plays in its pods.
func harnessKind(name string) bool {
	k, ok := generators.LookupKind(name)
	return ok && k.Capability == ""
}

// env is what a step needs beyond its fault: the options, the scenario's
// broker count (for minority and majority) and the harness pods' labels.
type env struct {
	o       Options
	brokers int
	harness map[string]string
}

// aim is the broker pods f acts on: Params.Nodes, else Params.Target (def
// when f names none), as a Chaos Mesh selection, and how that selection
// differs from the harness's, which sees the cluster when the fault starts.
func (e env) aim(f generators.Fault, def string) (PodSelector, []string) {
	sel := func(labels map[string]string, mode string, n int) PodSelector {
		p := PodSelector{Selector: Selector{Namespaces: []string{e.o.Namespace}, LabelSelectors: labels}, Mode: mode}
		if mode == ModeFixed {
			p.Value = itoa(n)
		}
		return p
	}
	if len(f.Params.Nodes) > 0 {
		return sel(e.o.Brokers, ModeFixed, len(f.Params.Nodes)), []string{fmt.Sprintf(
			"nodes %v are not pods before the cluster runs: %d brokers chosen by Chaos Mesh", f.Params.Nodes, len(f.Params.Nodes))}
	}
	target := f.Params.Target
	if target == "" {
		target = def
	}
	switch target {
	case "one":
		return sel(e.o.Brokers, ModeOne, 1), nil
	case "controller":
		return sel(controllerLabels(e.o.Brokers), ModeOne, 1), []string{
			"the active controller is not knowable before the run: one controller-role pod chosen by Chaos Mesh"}
	case "minority":
		return sel(e.o.Brokers, ModeFixed, max(1, (e.brokers-1)/2)), e.countNote()
	case "majority":
		return sel(e.o.Brokers, ModeFixed, e.brokers/2+1), e.countNote()
	case "all":
		return sel(e.o.Brokers, ModeAll, 0), nil
	}
	return sel(e.o.Brokers, ModeOne, 1), []string{dynamicTarget(target) + " is not knowable before the run: one broker chosen by Chaos Mesh"}
}

// dynamicTarget names a target the harness resolves when the fault starts.
func dynamicTarget(target string) string {
	switch target {
	case "leader":
		return "the leader of key 0"
	case generators.TargetTxnCoordinator:
		return "the coordinator of the run's first transactional id (txn-coordinator)"
	case generators.TargetGroupCoordinator:
		return "the coordinator of the run's consumer group (group-coordinator)"
	}
	return "target " + target
}

// countNote says what a minority or majority was counted from.
func (e env) countNote() []string {
	return []string{fmt.Sprintf("counted from the scenario's %d brokers; a cluster of another size needs another value", e.brokers)}
}

// harnessPods selects every pod of the harness's Job.
func (e env) harnessPods() *PodSelector {
	return &PodSelector{Selector: Selector{Namespaces: []string{e.o.Namespace}, LabelSelectors: e.harness}, Mode: ModeAll}
}

// allBrokers selects every broker pod.
func (e env) allBrokers() *PodSelector {
	return &PodSelector{Selector: Selector{Namespaces: []string{e.o.Namespace}, LabelSelectors: e.o.Brokers}, Mode: ModeAll}
}
