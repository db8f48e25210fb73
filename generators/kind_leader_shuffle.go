package generators

import "github.com/kafkachaos/kafkachaos/cluster"

// Behavior:
//
// * Instantaneous: elects a new leader for every partition at Start, then
//   every Params.Every; a new leader needs a second broker.
// * Takes nothing out while it waits between steps.
// * Drawn repeating every 200 ms to 2 s; --nemesis every 500 ms.

// KindLeaderShuffle elects a new leader for every partition.
const KindLeaderShuffle = "leader-shuffle"

func leaderShuffleKind() Kind {
	return Kind{Name: KindLeaderShuffle, Capability: cluster.CapLeaderMove, Instant: true, Drawn: true,
		Doc:      "Elects a new leader for every partition, at Start and then every Params.Every within the window.",
		need:     staticNeed(need{brokers: 2}),
		defaults: everyFlag,
		draw:     drawEvery(KindLeaderShuffle),
	}
}
