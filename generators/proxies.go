package generators

import (
	"slices"
	"time"
)

// probeTime is how long f's start takes on a cluster of brokers: a
// latency toxic counts as put once a probe through each of its proxies,
// one after another, came back late; a clock skew's start waits for each
// of its brokers' clocks to show the move. The runner plays the next step
// only after it, and the probes must be back before the run ends. Other
// faults take no probe.
func (f Fault) probeTime(brokers int) time.Duration {
	if p := kindOf(f.Kind).probe; p != nil {
		return p(f, brokers)
	}
	return 0
}

// proxiedNodes is how many brokers' proxies a proxy fault acts on: every
// one unless Params.Target names fewer.
func proxiedNodes(f Fault, brokers int) int {
	if f.Params.Target == "" {
		return brokers
	}
	return min(brokers, nodesTaken(f, brokers, 0))
}

// proxyAvailable checks what proxy fault i needs of the other faults: one
// proxy fault at a time on the same proxies (each heal removes every toxic
// of its set: the clients' or the replication link's), and no node down or
// cut when a latency toxic's probes go out.
func proxyAvailable(s Scenario, i int, field string) error {
	f := s.Nemesis[i]
	mine := footprintOf(f, s)
	if mine.Proxies == "" {
		return nil
	}
	for j, o := range s.Nemesis {
		theirs := footprintOf(o, s)
		switch {
		case j == i:
		case theirs.Proxies == mine.Proxies && f.Start < o.End() && o.Start < f.End():
			return bad(field+".start", "%s (%v-%v) overlaps nemesis[%d] %s (%v-%v): one proxy fault at a time on the same proxies, as each heal removes every toxic",
				f.Kind, f.Start, f.End(), j, o.Kind, o.Start, o.End())
		case f.probeTime(s.Cluster.Brokers) > 0 && cutsNodes(o, s) && o.Start <= f.Start && f.Start < o.End():
			return bad(field+".start", "%s starts at %v inside nemesis[%d] %s (%v-%v): its toxic is verified by a probe through each proxy, which a node down or cut off cannot answer",
				f.Kind, f.Start, j, o.Kind, o.Start, o.End())
		}
	}
	return nil
}

// addsBroker reports whether a fault of s adds a broker (footprint Adds).
func addsBroker(s Scenario) bool {
	return slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Adds })
}

// addAvailable refuses a fault that adds a broker to a scenario whose
// clients or replication go through proxies: the added broker would have
// no listener for them.
func addAvailable(s Scenario, i int, field string) error {
	f := s.Nemesis[i]
	if !footprintOf(f, s).Adds || !s.Proxied() && !s.ReplicationProxied() {
		return nil
	}
	return bad(field+".kind", "%s adds a broker that no proxy serves, and the scenario's clients or replication go through proxies (cluster.client-proxies, cluster.replication-proxies, or a latency or delayed-requests fault): the added broker would have no listener for them",
		f.Kind)
}

// cutsNodes reports whether f takes brokers down (a power loss, a disk
// fault that shuts one down and a removed broker too), freezes them or
// cuts them off the network.
func cutsNodes(f Fault, s Scenario) bool {
	fp := footprintOf(f, s)
	return fp.Down > 0 || fp.Cuts || fp.Removes
}

// Proxied reports whether s's clients reach the brokers through proxies:
// asked for (cluster.client-proxies), or needed by a fault on them (a
// latency fault on the replication link needs the brokers' instead).
func (s Scenario) Proxied() bool {
	return s.Cluster.ClientProxies || slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Proxies == LinkClients })
}
