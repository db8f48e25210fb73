package checkers

import (
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

const no = histories.NoOffset

// A committed transaction's writes must be visible together: the clean half
// of each pair is the same history with the transaction fully visible, or
// with nothing that makes it torn.
func TestTornTransactionPartiallyVisible(t *testing.T) {
	runPairs(t, []pair{{
		// The info txn's offsets are unknown, so only the final reads of
		// key 1 say that 2 is missing: torn-transaction alone.
		name: "info txn read on one key, missing from the final reads of the other",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, no), snd(1, 2, no))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, pl(0, 0, 1))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, no), snd(1, 2, no))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, polls(pl(0, 0, 1), pl(1, 0, 2)))
		},
		want: []Anomaly{TornTransaction},
		ops:  []int64{0},
	}, {
		// Nothing proves the info txn committed: it may have aborted.
		name: "info txn none of whose writes were read",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, no), snd(1, 2, no))
			h.op(1, fail, "txn", snd(0, 3, 0))
			h.op(2, ok, "poll", pl(0, 0, 3))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, no), snd(1, 2, no))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, polls(pl(0), pl(1)))
		},
		want: []Anomaly{G1a},
	}, {
		// An aborted txn's visible write is G1a; its invisible one is
		// as it should be.
		name: "aborted txn partially visible",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(0, 1, 0), snd(1, 2, 0))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, pl(0, 0, 1))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(0, 1, 0), snd(1, 2, 0))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, polls(pl(0), pl(1)))
		},
		want: []Anomaly{G1a},
	}, {
		// Key 1 is read past the txn's write (3 at offset 1): the key
		// was read without final reads, so the bound alone covers it.
		name: "ok txn read on one key, skipped on the other",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 0), snd(1, 2, 0))
			h.op(1, ok, "send", snd(1, 3, 1))
			h.op(2, ok, "poll", polls(pl(0, 0, 1), pl(1, 1, 3)))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 0), snd(1, 2, 0))
			h.op(1, ok, "send", snd(1, 3, 1))
			h.op(2, ok, "poll", polls(pl(0, 0, 1), pl(1, 0, 2, 1, 3)))
		},
		want: []Anomaly{TornTransaction, LostWrite, Unseen},
	}})
}

// The torn case names the txn op, what was seen and what is missing, with
// offsets, and links the lost-write of the same record.
func TestTornTransactionCaseNamesWrites(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "txn", snd(0, 1, 0), snd(1, 2, 0))
	h.op(1, ok, "send", snd(1, 3, 1))
	h.op(2, ok, "poll", polls(pl(0, 0, 1), pl(1, 1, 3)))
	c := only(t, check(t, h, Options{}), TornTransaction)
	expectOps(t, c, 0)
	if *c.Key != 1 || *c.Value != 2 || !slices.Equal(c.Offsets, []int64{0}) {
		t.Fatalf("case key %d value %d offsets %v, want key 1 value 2 offsets [0]", *c.Key, *c.Value, c.Offsets)
	}
	for _, want := range []string{"read value 1 of key 0 at offset 0", "none read value 2 of key 1 at offset 0", "lost-write"} {
		if !strings.Contains(c.Explanation, want) {
			t.Fatalf("explanation %q lacks %q", c.Explanation, want)
		}
	}
}

// A transaction's write that landed inside the same process's later
// transaction is interleaved: every write was read, so nothing is torn. An
// info txn is used so that nonmonotonic-send, which an info send's position
// does not move, stays out of the way.
func TestInterleavedTransaction(t *testing.T) {
	runPairs(t, []pair{{
		name: "same process's later txn below the earlier one",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, 1))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", pl(0, 0, 2, 1, 1))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, 0))
			h.op(0, ok, "txn", snd(0, 2, 1))
			h.op(2, ok, "poll", pl(0, 0, 1, 1, 2))
		},
		want: []Anomaly{InterleavedTransaction},
		ops:  []int64{0, 1},
	}, {
		// Different producers' transactions interleave legitimately.
		name: "two processes' transactions interleave",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, 1))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", pl(0, 0, 2, 1, 1))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, 1))
			h.op(1, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", pl(0, 0, 2, 1, 1))
		},
		want: []Anomaly{InterleavedTransaction},
		ops:  []int64{0, 1},
	}, {
		// An ok earlier txn also moves the send position, so the later
		// txn's write is a nonmonotonic send as well.
		name: "ok txns of one process interleaved",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 1), snd(1, 5, 0))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", polls(pl(0, 0, 2, 1, 1), pl(1, 0, 5)))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 0), snd(1, 5, 0))
			h.op(0, ok, "txn", snd(0, 2, 1))
			h.op(2, ok, "poll", polls(pl(0, 0, 1, 1, 2), pl(1, 0, 5)))
		},
		want: []Anomaly{InterleavedTransaction, NonmonotonicSend},
	}, {
		// Interleaving is judged against committed txns only: the
		// earlier one here failed.
		name: "failed earlier txn",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(0, 1, 1))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", pl(0, 0, 2, 1, 1))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(0, 1, 1))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.op(2, ok, "poll", pl(0, 0, 2))
		},
		want: []Anomaly{InterleavedTransaction},
	}, {
		// The later txn aborted and took the earlier one's write on key 0
		// with it, while its write on key 1 was read: the earlier
		// transaction is torn and lost that write, besides interleaved.
		name: "later txn aborted with the earlier one's write",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 1), snd(1, 5, 0))
			h.op(0, fail, "txn", snd(0, 2, 0))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, polls(pl(0), pl(1, 0, 5)))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(0, 1, 0), snd(1, 5, 0))
			h.op(0, fail, "txn", snd(0, 2, 1))
			h.finalAssign(9, 0, 1)
			h.finalPoll(9, polls(pl(0, 0, 1), pl(1, 0, 5)))
		},
		want: []Anomaly{TornTransaction, InterleavedTransaction, Unseen},
	}})
}

// The interleaved case names both txn ops, the values and their offsets.
func TestInterleavedTransactionCaseNamesWrites(t *testing.T) {
	h := &hist{}
	h.op(0, info, "txn", snd(0, 1, 1))
	h.op(0, ok, "txn", snd(0, 2, 0))
	h.op(2, ok, "poll", pl(0, 0, 2, 1, 1))
	c := only(t, check(t, h, Options{}), InterleavedTransaction)
	expectOps(t, c, 0, 1)
	if *c.Key != 0 || *c.Value != 1 || !slices.Equal(c.Offsets, []int64{1, 0}) {
		t.Fatalf("case key %d value %d offsets %v, want key 0 value 1 offsets [1 0]", *c.Key, *c.Value, c.Offsets)
	}
	for _, want := range []string{"txn op 0 committed value 1 of key 0 at offset 1", "later txn op 1 wrote 2", "nothing is lost"} {
		if !strings.Contains(c.Explanation, want) {
			t.Fatalf("explanation %q lacks %q", c.Explanation, want)
		}
	}
}

// A write the log lost to a truncation after it was read is not inside a
// later transaction of its process: the later one reuses offsets below it
// because the log no longer reaches it. Kept, the same write is interleaved.
func TestInterleavedTransactionAcrossATruncation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		final histories.Mop
		want  []Anomaly
	}{
		{"truncated below the earlier write", pl(0, 0, 2), []Anomaly{LostAfterRead, NonmonotonicSend}},
		{"earlier write kept", pl(0, 0, 2, 5, 1), []Anomaly{InterleavedTransaction, NonmonotonicSend}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hist{}
			h.op(0, ok, "txn", snd(0, 1, 5))
			h.op(2, ok, "poll", pl(0, 5, 1))
			h.op(0, ok, "txn", snd(0, 2, 0))
			h.finalAssign(9, 0)
			h.finalPoll(9, tc.final)
			expectOnly(t, check(t, h, Options{}), tc.want...)
		})
	}
}
