package generators

import "time"

// Behavior:
//
// * Instantaneous: crashes a producer (or a copier or txn queue, in its
//   next transaction) at Start, then every Params.Every; a new one, with
//   new producer ids, takes its place. A crash lands a few ops later
//   (crashEffect), in a transaction once its client has joined (groupJoin).
// * Footprint: the producers; two faults on the same clients must not
//   overlap in a draw (the runner plays one crash at a time).
// * Drawn repeating no sooner than its crash lands; --nemesis every 500 ms.

// KindCrashProducer crashes a producer; a new one (new process ids)
// takes its place.
const KindCrashProducer = "crash-producer"

func crashProducerKind() Kind {
	return Kind{Name: KindCrashProducer, Instant: true, Drawn: true,
		Doc: "Crashes a producer (or a copier or txn queue, in its transaction), at Start and then every Params.Every; " +
			"a new one with new producer ids takes its place.",
		need: func(_ Fault, s Scenario) need {
			if s.Workload.Copiers+s.Workload.TxnQueues > 0 {
				// the crash may fall on a copier or a txn queue, which
				// crashes in a transaction: once it has opened (a copier
				// joined its group), and again once its successor has
				return need{senders: true, warmup: groupJoin, effect: groupJoin}
			}
			return need{senders: true, effect: crashEffect}
		},
		footprint: clientFootprint("producers"),
		defaults:  everyFlag,
		draw:      drawEvery(KindCrashProducer),
	}
}

// clientFootprint is the footprint of a fault on role's clients.
func clientFootprint(role string) func(Fault, Scenario) Footprint {
	return func(Fault, Scenario) Footprint { return Footprint{Client: role} }
}

// drawEvery draws an instantaneous fault's repeat: the runner plays steps
// one at a time and a crash holds the timeline until it has landed, so a
// repeat sooner than a step's effect would pile up behind it and starve
// the later faults.
func drawEvery(kind string) func(drawer, func(string) string, Scenario) FaultParams {
	return func(d drawer, label func(string) string, s Scenario) FaultParams {
		return withEvery(d, label, s, Fault{Kind: kind})
	}
}

// withEvery is f's parameters with a drawn repeat, its kind's need in s
// bounding it from below.
func withEvery(d drawer, label func(string) string, s Scenario, f Fault) FaultParams {
	lo := max(200, int(f.need(s).effect/time.Millisecond))
	f.Params.Every = Duration(time.Duration(d.intRange(label("every-ms"), lo, max(lo, 2000))) * time.Millisecond)
	return f.Params
}
