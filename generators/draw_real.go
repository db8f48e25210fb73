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
)

// drawRealParams draws the parameters of the kinds only real brokers run
// (clocks, disks, membership) from the values Validate accepts; reassign
// reads none.
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
