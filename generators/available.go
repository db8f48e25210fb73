package generators

import (
	"fmt"
	"time"
)

// Available reports why s.Nemesis[i] could never take effect in s — its
// kind's need (needOf) is unmet by the workload, the brokers, the timing or
// the other faults — as a *FieldError naming the field; nil when it can.
func Available(s Scenario, i int) error {
	f := s.Nemesis[i]
	field := fmt.Sprintf("nemesis[%d]", i)
	n := f.need(s)
	if err := n.workload(s, f.Kind, field); err != nil {
		return err
	}
	if s.Cluster.Brokers < n.brokers {
		why := ""
		if footprintOf(f, s).Moves {
			why = fmt.Sprintf(" (one more than topic.replication-factor %d: a broker to move a replica to)", s.Topic.ReplicationFactor)
		}
		return bad(field+".kind", "%s%s needs %d brokers to act on, the cluster has %d%s",
			f.Kind, targetText(f), n.brokers, s.Cluster.Brokers, why)
	}
	if err := n.timing(f, s.TimeLimit.D(), field); err != nil {
		return err
	}
	if err := proxyAvailable(s, i, field); err != nil {
		return err
	}
	if err := replicationAvailable(s, i, field); err != nil {
		return err
	}
	if err := addAvailable(s, i, field); err != nil {
		return err
	}
	if a := kindOf(f.Kind).available; a != nil {
		if err := a(s, f, field); err != nil {
			return err
		}
	}
	if n.takesDown {
		return majorityUp(s, i, field)
	}
	return nil
}

func targetText(f Fault) string {
	if f.Params.Target == "" {
		return ""
	}
	return " on target " + f.Params.Target
}

// need is f's kind's need with what its parameters and s change.
func (f Fault) need(s Scenario) need {
	n := kindOf(f.Kind).needFor(f, s)
	// a latency toxic is put once its probes are back (see probeTime)
	n.effect = max(n.effect, f.probeTime(s.Cluster.Brokers))
	if s.Workload.ClientProcesses && KindCapability(f.Kind) == "" {
		n.warmup = max(n.warmup, processStart) // the client's process is up first
	}
	if f.Params.Target == "minority" {
		n.brokers = max(n.brokers, 3) // fewer than half of one or two brokers is none
	}
	return n
}

// workload checks the clients the kind acts on run.
func (n need) workload(s Scenario, kind, field string) error {
	w := s.Workload
	switch {
	case n.senders && w.Producers+w.Copiers+w.TxnQueues == 0:
		return bad(field+".kind", "%s acts on producers or their produce requests, and the workload has no producers, copiers or txn queues", kind)
	case n.copiers && w.Copiers == 0:
		return bad(field+".kind", "%s acts on a copier, and the workload has none", kind)
	case n.txnQueues && w.TxnQueues == 0:
		return bad(field+".kind", "%s acts on a txn queue, and the workload has none", kind)
	case n.consumers && w.Consumers == 0:
		return bad(field+".kind", "%s acts on a consumer, and the workload has none", kind)
	case n.group && w.Mode != ModeGroup:
		return bad(field+".kind", "%s makes a group member leave, and the consumers are in mode %s, not group", kind, w.Mode)
	}
	return nil
}

// timing checks that a step of f lands when it can act: its clients up
// (warmup) and time left for its effect before the run ends at limit.
func (n need) timing(f Fault, limit time.Duration, field string) error {
	last := limit - n.effect
	for _, at := range Steps(f) {
		if at >= n.warmup && at <= last && at < limit {
			return nil
		}
	}
	return bad(field+".start", "%s steps at %v, none between %v (its clients up) and %v (%v before the %v time limit, for its effect to show)",
		f.Kind, Steps(f), n.warmup, last, n.effect, limit)
}

// Steps is when f acts, as the runner schedules it: a window fault at its
// start; an instantaneous one at its start, then every Params.Every until
// its window closes.
func Steps(f Fault) []time.Duration {
	if !Instantaneous(f.Kind) || f.Params.Every <= 0 {
		return []time.Duration{f.Start.D()}
	}
	var out []time.Duration
	for at := f.Start; at <= f.End(); at += f.Params.Every {
		out = append(out, at.D())
	}
	return out
}

// majorityUp checks that node fault i starts with a majority of the
// brokers up, counting the nodes the other node faults hold down then. A
// cluster without a majority has no KRaft quorum: a leader or controller
// target cannot be named, a node cannot be picked from those up, and
// stacking faults on it shows nothing the majority's loss did not.
func majorityUp(s Scenario, i int, field string) error {
	brokers := s.Cluster.Brokers
	at := s.Nemesis[i].Start
	down, by := 0, []int{}
	for j, o := range s.Nemesis {
		if n := footprintOf(o, s).Down; j != i && n > 0 && o.Start <= at && at < o.End() {
			down += n
			by = append(by, j)
		}
	}
	if brokers-down > brokers/2 {
		return nil
	}
	return bad(field+".start", "%s starts at %v while nemesis%v hold %d of %d brokers down: no majority is up",
		s.Nemesis[i].Kind, at, by, down, brokers)
}

// nodesTaken is how many brokers node fault f takes down, on brokers
// whose topic has rf replicas.
func nodesTaken(f Fault, brokers, rf int) int {
	if len(f.Params.Nodes) > 0 {
		return len(f.Params.Nodes)
	}
	switch f.Params.Target {
	case TargetReplicas:
		return max(1, rf)
	case "minority":
		return (brokers - 1) / 2
	case "majority":
		return brokers/2 + 1
	case "all":
		return brokers
	}
	return 1 // one node, the leader or the controller
}
