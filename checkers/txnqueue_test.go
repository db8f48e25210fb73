package checkers

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// queueHistory is what two txn queues and a final read record (client
// TxnQueue): each transaction one txn op whose mops are its sends and
// polls in order. Key 0's log: 1 (committed) at 0, 3 (aborted) at 2,
// 5 (committed) at 4, each followed by its marker; key 1's: 2 at 0 and
// 4 at 2. reader is the poll mop of the last committed transaction.
func queueHistory(h *hist, reader histories.Mop) {
	empty := histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{}}
	h.keys(0, ok, "assign", 0, 1)
	h.keys(1, ok, "assign", 0, 1)
	h.op(0, ok, "txn", snd(0, 1, 0), empty, snd(1, 2, 0))
	h.op(1, fail, "txn", snd(0, 3, 2), pl(0, 0, 1))
	h.op(0, ok, "txn", pl(0, 0, 1), snd(0, 5, 4))
	h.op(1, ok, "txn", reader, snd(1, 4, 2))
	h.op(2, ok, "poll", polls(pl(0, 0, 1, 4, 5), pl(1, 0, 2, 2, 4)))
}

// A committed queue transaction that reads a value an aborted one sent is
// G1a, naming the reader and the aborted writer. The same history whose
// committed reader passes over the aborted record, as read_committed
// does, is clean: its process's own aborted transaction read 1 and was
// rewound, so reading 1 again is no nonmonotonic poll.
func TestTxnQueueAbortedRead(t *testing.T) {
	runPairs(t, []pair{{
		name: "a committed txn reads an aborted txn's value",
		bad:  func(h *hist) { queueHistory(h, pl(0, 0, 1, 2, 3, 4, 5)) },
		good: func(h *hist) { queueHistory(h, pl(0, 0, 1, 4, 5)) },
		want: []Anomaly{G1a},
		ops:  []int64{5, 3},
	}})
}
