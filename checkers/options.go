package checkers

// Options tune what Check treats as an anomaly. The zero value is the
// default and matches Jepsen's Kafka checker with the assign workflow.
type Options struct {
	// WWDeps adds write-write edges (T1's value directly precedes T2's in a
	// key's version order) to the transaction dependency graph. Off by
	// default, as in Jepsen: Kafka transactions do not isolate writes, so two
	// committed transactions interleaving their sends on two partitions form
	// a ww cycle on a correct broker. With WWDeps on, G0 is searched for and
	// G1c cycles may include ww edges; read both as information about
	// interleaving rather than as broken guarantees.
	WWDeps bool

	// SubscribeAllowsPollSkip stops reporting poll-skip and nonmonotonic-poll
	// for a consumer whose latest assignment op was subscribe, as Jepsen does
	// for its subscribe workflow (a group rebalance may hand a partition to a
	// consumer at its committed offset, behind or ahead of where this
	// consumer last read). Off by default: this harness records rebalances
	// in the ops where they happen, and those already reset the positions of
	// the keys they name.
	SubscribeAllowsPollSkip bool

	// MaxCases caps how many cases of each anomaly Result.Anomalies keeps, for
	// display. 0 keeps all. Result.Counts is exact either way.
	MaxCases int

	// workers run the per-key passes; 0 is GOMAXPROCS. Tests set 1 to
	// compare a serial run with a parallel one.
	workers int
}
