package generators

import (
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Moves Params.Target's (or Params.Nodes') wall clocks by Params.Offset
//   for the window (bump), or flips them between the offset and real time
//   every Params.Every (strobe), and back at its end. Its start waits for
//   each broker's move to show (clockShows each), so its brokers' moves
//   must land within the run, and a strobe needs two periods.
// * Footprint: its brokers' clocks. It must not overlap a removal: each
//   move is seen through a probe topic with a replica on the broker.
// * Its heal cannot undo the times the brokers took meanwhile (Outlives):
//   a shared cluster is replaced after it.
// * Drawn with an offset of seconds to eight days, ahead or behind, on a
//   target whose moves fit the run, a strobe where the run holds two
//   periods.

// KindClockSkew moves the wall clock of Params.Target's brokers (or
// Params.Nodes) by Params.Offset for the window and returns it to real time
// at the window's end (real brokers with a movable clock: the local
// provider's libfaketime). Params.Mode bump holds the offset for the whole
// window; strobe flips between the offset and real time every Params.Every.
// The brokers' monotonic clocks stay real.
const KindClockSkew = "clock-skew"

// Clock skew modes (Params.Mode).
const (
	ClockBump   = "bump"
	ClockStrobe = "strobe"
)

// Clock skew defaults and bounds: a fault that names no offset moves the
// clock 90 s ahead (past a default 60 s transaction timeout's worth, less
// than anything measured in hours or days); a strobe flips every 4 s. A
// skew must be at least 1 s either way, as the probe that verifies it is
// good to about a quarter second, and a strobe's period at least 3 s, as a
// move takes about 2 s to show (libfaketime rereads its offset about once
// a second; 1.9-2.1 s measured on the local provider). Ten years bounds the
// offset so that a typo (an extra digit) is not a clock in another century.
const (
	DefaultClockOffset = 90 * time.Second
	DefaultStrobe      = 4 * time.Second
	minClockOffset     = time.Second
	maxClockOffset     = 10 * 365 * 24 * time.Hour
	minStrobe          = 3 * time.Second
	// clockShows is how long a broker's move takes to show, with margin
	// (the fault waits for it on each of its brokers in turn).
	clockShows = 2500 * time.Millisecond
)

func clockModes() []string { return []string{ClockBump, ClockStrobe} }

// Clocked reports whether s's brokers start with a clock the harness can
// move: asked for (cluster.clocks), or needed by a fault that moves one.
func (s Scenario) Clocked() bool {
	return s.Cluster.Clocks || slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Clock })
}

// ClockOffset is f's offset, DefaultClockOffset when it names none.
func (p FaultParams) ClockOffset() time.Duration {
	if p.Offset == 0 {
		return DefaultClockOffset
	}
	return p.Offset.D()
}

// StrobePeriod is how long a strobe holds each of its two clocks;
// 0 for a bump.
func (p FaultParams) StrobePeriod() time.Duration {
	switch {
	case p.Mode != ClockStrobe:
		return 0
	case p.Every == 0:
		return DefaultStrobe
	}
	return p.Every.D()
}

func clockSkewKind() Kind {
	return Kind{Name: KindClockSkew, Capability: cluster.CapClock, Drawn: true,
		Doc: "Moves the wall clock of Params.Target's brokers (or Params.Nodes) by Params.Offset (90 s ahead by default; " +
			"at least 1 s either way) for the window and returns it to real time at its end. Params.Mode bump holds the " +
			"offset for the whole window; strobe flips between the offset and real time every Params.Every (4 s by " +
			"default, at least 3 s). The brokers' monotonic clocks stay real (libfaketime on the local provider).",
		Owns:  []string{"offset", "mode"},
		check: checkClock,
		outlives: "the wall-clock times the brokers recorded while their clocks were off (transaction start times, " +
			"record and segment timestamps, replicas' catch-up times) stay after the clocks are put back",
		footprint: func(f Fault, s Scenario) Footprint {
			return Footprint{Clock: true, Target: f.Params.Target}
		},
		probe: func(f Fault, brokers int) time.Duration { return time.Duration(nodesTaken(f, brokers, 0)) * clockShows },
		draw:  drawClockParams,
	}
}

// checkClock checks the parameters clock-skew reads.
func checkClock(f Fault, field string, _ *Scenario) error {
	p := f.Params
	off := p.Offset.D().Abs()
	switch {
	case p.Offset != 0 && off < minClockOffset:
		return bad(field+".params.offset", "%s: want at least %s either way (the probe that verifies a skew is good to about 250ms)", p.Offset, minClockOffset)
	case off > maxClockOffset:
		return bad(field+".params.offset", "%s: want at most %s either way", p.Offset, maxClockOffset)
	case p.Mode != "" && !slices.Contains(clockModes(), p.Mode):
		return bad(field+".params.mode", "%q is not one of %v", p.Mode, clockModes())
	case p.Mode != ClockStrobe && p.Every != 0:
		return bad(field+".params.every", "%s: only a strobe (mode %s) flips its clock every so often", p.Every, ClockStrobe)
	case p.Mode == ClockStrobe && p.Every != 0 && p.Every.D() < minStrobe:
		return bad(field+".params.every", "%s: a strobe's period must be at least %s (a move takes about 2s to show)", p.Every, minStrobe)
	case p.Mode == ClockStrobe && f.Duration.D() < 2*p.StrobePeriod():
		return bad(field+".duration", "%s: a strobe needs two periods of %s to flip back and forth at least once", f.Duration, p.StrobePeriod())
	}
	return nil
}

// clockOffsets are the skews a clock-skew draw picks from, the default
// first (where shrinking goes): seconds, which transaction and session
// timers notice; an hour; a day, past a day's segment roll; eight days,
// past the default seven days of retention.
func clockOffsets() []time.Duration {
	return []time.Duration{DefaultClockOffset, 5 * time.Second, time.Hour, 25 * time.Hour, 8 * 24 * time.Hour}
}

// drawClockParams draws a skew ahead or behind, on targets whose moves
// (one after another, clockShows each) land within s's run, and a strobe
// only where the run could hold two of its periods (fitStrobe checks the
// window once it is drawn).
func drawClockParams(d drawer, label func(string) string, s Scenario) FaultParams {
	offsets := clockOffsets()
	off := offsets[d.intRange(label("offset"), 0, len(offsets)-1)]
	if d.boolean(label("behind")) {
		off = -off
	}
	fit := fitting(s, KindClockSkew, realTargets())
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
