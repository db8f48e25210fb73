package generators

import "time"

// clockOffsets are the skews a clock-skew draw picks from, the default
// first (where shrinking goes): seconds, which transaction and session
// timers notice; an hour; a day, past a day's segment roll; eight days,
// past the default seven days of retention.
var clockOffsets = []time.Duration{DefaultClockOffset, 5 * time.Second, time.Hour, 25 * time.Hour, 8 * 24 * time.Hour}

// Targets each real kind's draw picks from, the simplest first.
var (
	clockTargets     = []string{"one", "leader", "controller", "minority", "majority", "all"}
	powerLossTargets = []string{"one", "leader", TargetReplicas, "all"}
	diskTargets      = []string{"one", "leader"}
	removeTargetsOf  = []string{"one", "leader", "controller"}
	voterTargets     = []string{"one", "controller"}
)

// drawRealParams draws the parameters of the kinds only real brokers run
// (clocks, disks, membership, the quorum) from the values Validate
// accepts; reassign and add-broker read none.
func drawRealParams(d drawer, label func(string) string, s Scenario, kind string) FaultParams {
	switch kind {
	case KindClockSkew:
		return drawClockParams(d, label, s)
	case KindPowerLoss:
		return FaultParams{Target: d.pick(label("target"), powerLossTargets)}
	case KindDiskFault:
		return FaultParams{Target: d.pick(label("target"), diskTargets), Disk: d.pick(label("disk"), diskModes)}
	case KindRemoveBroker:
		return FaultParams{Target: d.pick(label("target"), removeTargetsOf)}
	case KindRemoveVoter:
		return FaultParams{Target: d.pick(label("target"), voterTargets)}
	}
	return FaultParams{}
}

// drawClockParams draws a skew ahead or behind, on targets whose moves
// (one after another, clockShows each) land within s's run, and a strobe
// only where the run could hold two of its periods (fitStrobe checks the
// window once it is drawn).
func drawClockParams(d drawer, label func(string) string, s Scenario) FaultParams {
	off := clockOffsets[d.intRange(label("offset"), 0, len(clockOffsets)-1)]
	if d.boolean(label("behind")) {
		off = -off
	}
	var fit []string
	for _, t := range clockTargets {
		if fits(s, Fault{Kind: KindClockSkew, Params: FaultParams{Target: t}}) {
			fit = append(fit, t)
		}
	}
	p := FaultParams{Offset: Duration(off), Target: d.pick(label("target"), fit)}
	if s.TimeLimit.D() >= 3*DefaultStrobe && d.boolean(label("strobe")) {
		p.Mode = ClockStrobe
	}
	return p
}

// fitStrobe makes a strobe whose drawn window cannot hold two periods a
// bump: Validate refuses such a strobe.
func fitStrobe(f Fault) Fault {
	if f.Params.Mode == ClockStrobe && f.Duration.D() < 2*f.Params.StrobePeriod() {
		f.Params.Mode = ""
	}
	return f
}

// drawLink picks the link of a latency fault: the clients' proxies, or
// the replication link where the provider has it and s's topic has
// followers whose fetches it would slow.
func drawLink(d drawer, label func(string) string, s Scenario) string {
	if !replicationLinkOn(s.Cluster.Provider) || s.Topic.ReplicationFactor < 2 {
		return ""
	}
	if d.pick(label("link"), latencyLinks) == LinkReplication {
		return LinkReplication
	}
	return ""
}

// membershipClash reports whether a draw's add-broker or remove-voter
// overlaps a fault it would wait on or undo, each window stretched by the
// time its last change takes to land. Both could take effect alone, but
// the runner plays steps one at a time: an added broker's replica move
// and a reassign or removal beside it move the same partition or brokers,
// and with a voter out the two voters left are both the majority, so a
// node taken down or cut off then stops the quorum and the voter's return
// waits on a heal that the runner plays only after it. Draws avoid them;
// a hand-written schedule may not (the full profile's quorum kill).
func membershipClash(s Scenario) bool {
	for i, a := range s.Nemesis {
		for j, b := range s.Nemesis {
			if i != j && clashes(a.Kind, b.Kind) &&
				a.Start.D() <= b.End().D()+landing(b, s) && b.Start.D() <= a.End().D()+landing(a, s) {
				return true
			}
		}
	}
	return false
}

// clashes reports whether a fault of kind a must not overlap one of b.
func clashes(a, b string) bool {
	changes := b == KindReassign || b == KindRemoveBroker || b == KindAddBroker || b == KindRemoveVoter
	switch a {
	case KindAddBroker:
		return changes
	case KindRemoveVoter:
		return changes || needOf(b).takesDown || b == KindPartition
	}
	return false
}

// landing is how long f's last step takes to land after its window (a
// voter's return takes as long as its removal).
func landing(f Fault, s Scenario) time.Duration { return f.need(s).effect }
