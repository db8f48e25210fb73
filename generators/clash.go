package generators

import (
	"fmt"
	"time"
)

// Footprint is what a fault takes out while it is active. The clash rules
// (clashRules) read two faults' footprints to decide whether their windows
// may overlap.
type Footprint struct {
	// Down is how many brokers it takes down, freezes or stops (the
	// majority rule counts them: majorityUp).
	Down int
	// Target names which brokers: one, leader, controller, replicas,
	// minority, majority, all, or nodes (Params.Nodes).
	Target string
	// Removes: a broker is out of the cluster's membership (unregistered).
	Removes bool
	// Moves: a replica of key 0's partition moves to a broker that holds
	// none, which must exist.
	Moves bool
	// Adds: a new broker joins and takes a replica.
	Adds bool
	// Voters is how many controllers it takes out of the voter set.
	Voters int
	// Disk: it fails or discards a broker's disk.
	Disk bool
	// Clock: it moves a broker's clock.
	Clock bool
	// Client is the clients it crashes, replaces, stalls or stops
	// (consumers, producers, or a pause-client's role).
	Client string
	// Cuts: it cuts, drops or slows network links of brokers; ByAddress:
	// by a peer's address or port inside the nodes' namespaces, which
	// brokers replicating through the harness's proxies do not use.
	Cuts, ByAddress bool
	// Proxies is the proxies whose toxics it puts: LinkClients or
	// LinkReplication ("" none); each heal removes every toxic of its set.
	Proxies string
}

// footprintOf is f's footprint in s.
func footprintOf(f Fault, s Scenario) Footprint { return kindOf(f.Kind).Footprint(f, s) }

// downFootprint is the footprint of a fault that takes its target's
// brokers down.
func downFootprint(f Fault, s Scenario) Footprint {
	t := f.Params.Target
	if len(f.Params.Nodes) > 0 {
		t = "nodes"
	}
	return Footprint{Down: nodesTaken(f, s.Cluster.Brokers, s.Topic.ReplicationFactor), Target: t}
}

// cutFootprint is the footprint of a fault that cuts brokers' links by
// address.
func cutFootprint(Fault, Scenario) Footprint { return Footprint{Cuts: true, ByAddress: true} }

// clashRule says why two footprints must not overlap ("" when they may).
// A hard rule's pair cannot be played (a window waits on the other's, or
// its heal cannot hold): Validate refuses it. A soft rule's pair plays,
// but one of the two shows less than it would alone (a step that lands
// late, a quorum that stops): draws avoid it, a hand-written schedule may
// want it.
type clashRule struct {
	hard bool
	why  func(a, b Footprint, s Scenario) string
}

// clashRules are the pairs of footprints that must not overlap. Each rule
// is asked of (a, b) and of (b, a).
func clashRules() []clashRule {
	return []clashRule{
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			if a.Removes && b.Removes {
				return "two brokers out of the cluster at once: the second's clean stop and unregistration wait on brokers and a controller the first took"
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, s Scenario) string {
			if a.Moves && b.Removes && s.Cluster.Brokers-1 < s.Topic.ReplicationFactor+1 {
				return fmt.Sprintf("a reassign needs a broker that holds no replica of key 0's partition, and with one of %d brokers removed none is left beside replication factor %d: no broker to move one to",
					s.Cluster.Brokers, s.Topic.ReplicationFactor)
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			if a.Moves && b.Moves {
				return "both move a replica of key 0's partition: a second reassignment replaces the first, and neither lands as verified"
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			// a removal takes its broker down too; two removals, and a
			// move beside a removal, have rules of their own
			if (a.Removes || a.Moves || a.Adds) && ((b.Down > 0 && !b.Removes) || b.Cuts || b.Disk) {
				return "a membership change waits on every broker (a clean stop, a replica caught up, a reassignment listed done): " +
					"a broker down, cut off or on a failing disk stalls it, or its return, past any bound"
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			if a.Clock && b.Removes {
				return "a moved clock is seen through a probe topic with a replica on each broker it moves, and a broker out of the cluster takes no replica"
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			if a.Disk && b.Disk {
				return "both act on a broker's disk, picked by target (the same broker, or all): a broker restarted onto a failing disk exits, and the heal cannot hold"
			}
			return ""
		}},
		{hard: true, why: func(a, b Footprint, _ Scenario) string {
			if a.Voters > 0 && (b.Voters > 0 || b.Removes || b.Moves || b.Adds) {
				return "with a voter out, the voters left are all the majority: a membership change then waits on a quorum it may take, and the voter's return on the change"
			}
			return ""
		}},
		{why: func(a, b Footprint, _ Scenario) string {
			if a.Adds && (b.Removes || b.Moves || b.Adds) {
				return "an added broker's replica move and a membership change move the same partition or brokers, one waiting on the other"
			}
			return ""
		}},
		{why: func(a, b Footprint, _ Scenario) string {
			if a.Disk && b.Cuts {
				return "a failing disk shows only through the reads and writes its broker does, which a cut may stop: the fault is then never seen"
			}
			return ""
		}},
		{why: func(a, b Footprint, _ Scenario) string {
			if a.Voters > 0 && (b.Down > 0 || b.Cuts) {
				return "with a voter out, a broker down or cut off stops the quorum until it is back"
			}
			return ""
		}},
		{why: func(a, b Footprint, _ Scenario) string {
			if a.Client != "" && a.Client == b.Client {
				return "both act on the " + a.Client + ": the runner plays one crash at a time, and the later step finds its client still being replaced"
			}
			return ""
		}},
	}
}

// clashOf is why faults i and j of s must not overlap, and whether that is
// a hard rule; "" when no rule of those asked (hard only, or all) forbids
// it.
func clashOf(s Scenario, i, j int, all bool) (string, bool) {
	a, b := footprintOf(s.Nemesis[i], s), footprintOf(s.Nemesis[j], s)
	for _, r := range clashRules() {
		if !r.hard && !all {
			continue
		}
		if why := r.why(a, b, s); why != "" {
			return why, r.hard
		}
		if why := r.why(b, a, s); why != "" {
			return why, r.hard
		}
	}
	return "", false
}

// reach is how long after its window f still holds what it took: until its
// last change lands (a voter's return takes as long as its removal), and
// in a draw until its heal budget is spent too.
func reach(f Fault, s Scenario, draw bool) time.Duration {
	r := f.need(s).effect
	if draw {
		r = max(r, healFor(f))
	}
	return r
}

// overlap reports whether faults a and b of s hold at once, each stretched
// by its reach; a window starting as another ends overlaps it (its start
// races the other's heal).
func overlap(s Scenario, a, b Fault, draw bool) bool {
	return a.Start.D() <= b.End().D()+reach(b, s, draw) && b.Start.D() <= a.End().D()+reach(a, s, draw)
}

// clashes is every pair of s's faults that must not overlap and does: a
// *FieldError naming the later one. Validate asks the hard rules; a draw
// asks every rule, with each window stretched by its heal budget too.
func clashes(s Scenario, draw bool) []error {
	var errs []error
	for j := range s.Nemesis {
		for i := range j {
			a, b := s.Nemesis[i], s.Nemesis[j]
			if !overlap(s, a, b, draw) {
				continue
			}
			if why, _ := clashOf(s, i, j, draw); why != "" {
				errs = append(errs, bad(fmt.Sprintf("nemesis[%d]", j), "overlaps nemesis[%d] (%s) from %s to %s: %s",
					i, a.Kind, a.Start, a.End(), why))
			}
		}
	}
	return errs
}

// healsInTime reports whether f's heal budget fits between its window's
// end and the run's.
func healsInTime(f Fault, s Scenario) bool { return f.End().D()+healFor(f) <= s.TimeLimit.D() }
