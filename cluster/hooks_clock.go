package cluster

import (
	"context"
	"time"
)

// CapClock: ClockSkewer (a broker's wall clock moved at run time). A
// provider that has it gives the brokers of a run whose Spec asks for
// Clocks a wall clock the harness controls; whether it can is fixed by the
// kind of provider and the machine (a preload library), so it is known
// before Start.
const CapClock Capability = "clock"

// EffectClock names ClockSkewer.SkewClock for EffectVerifier.
const EffectClock Effect = "clock"

// ClockSkewer moves one broker's wall clock (what the JVM's
// System.currentTimeMillis reads: log append times, retention, transaction
// and producer-id expiry) and leaves its monotonic clock alone, so that the
// JVM's timers and sleeps keep working.
type ClockSkewer interface {
	// SkewClock sets node's wall clock to real time plus offset; 0 returns
	// it to real time. It returns once a probe of the broker shows the
	// clock moved, with the skew the probe measured (broker's time minus
	// the harness's), or an error with the last measurement when it did
	// not move within the provider's bound.
	SkewClock(ctx context.Context, node int32, offset time.Duration) (ClockReading, error)
}

// ClockReading is one probe of a broker's wall clock.
type ClockReading struct {
	Node int32
	// Skew is the broker's wall clock minus the harness's, measured at the
	// middle of the probe's round trip.
	Skew time.Duration
	// RTT is the probe's round trip: the measurement is good to half of it
	// (plus the broker's millisecond).
	RTT time.Duration
	// How names the probe (e.g. a produce's LogAppendTime).
	How string
}
