package checkers

// Anomaly names a kind of finding. Names follow Jepsen's Kafka checker where
// one exists, so that results compare directly with Jepsen's.
type Anomaly string

// Producer and log side.
const (
	LostWrite           Anomaly = "lost-write"
	Unseen              Anomaly = "unseen"
	Duplicate           Anomaly = "duplicate"
	InconsistentOffsets Anomaly = "inconsistent-offsets"
	NonmonotonicSend    Anomaly = "nonmonotonic-send"
	IntNonmonotonicSend Anomaly = "int-nonmonotonic-send"
	IntSendSkip         Anomaly = "int-send-skip"
	// LostAfterRead: a record an ok op read that the final reads, from the
	// beginning of its key to the end, no longer contain (lostafterread.go).
	LostAfterRead Anomaly = "lost-after-read"
)

// Consumer side, per consumer process.
const (
	PollSkip            Anomaly = "poll-skip"
	NonmonotonicPoll    Anomaly = "nonmonotonic-poll"
	IntPollSkip         Anomaly = "int-poll-skip"
	IntNonmonotonicPoll Anomaly = "int-nonmonotonic-poll"
)

// Consumer side, per consumer group: these decide consumer semantics.
const (
	DuplicateDelivery Anomaly = "duplicate-delivery"
	LostDelivery      Anomaly = "lost-delivery"
)

// Transactions.
const (
	G1a              Anomaly = "G1a"
	PrecommittedRead Anomaly = "precommitted-read"
	G0               Anomaly = "G0"
	G1c              Anomaly = "G1c"
	// TornTransaction: a committed transaction only part of whose writes
	// readers saw (torn.go).
	TornTransaction Anomaly = "torn-transaction"
	// InterleavedTransaction: a committed transaction's write that landed
	// inside a later transaction of the same process (torn.go).
	InterleavedTransaction Anomaly = "interleaved-transaction"
)
