package checkers

import "testing"

// TestAbortedRecordsAreNotSkipped: key 1 holds 10 at offset 0, 11 at 1, a
// transaction marker at 2 and 12 at 3. A read_uncommitted consumer (its poll
// info, so that it proves no G1a) reads all three records; a read_committed
// consumer reads 0 and 3. When a failed txn wrote 11, passing over it is what
// read_committed does; when an ok send wrote it, it is a skip.
func TestAbortedRecordsAreNotSkipped(t *testing.T) {
	written := func(h *hist, aborted bool) {
		h.op(0, ok, "send", snd(1, 10, 0))
		if aborted {
			h.op(1, fail, "txn", snd(1, 11, 1))
		} else {
			h.op(1, ok, "txn", snd(1, 11, 1))
		}
		h.op(0, ok, "send", snd(1, 12, 3))
		h.op(2, info, "poll", pl(1, 0, 10, 1, 11, 3, 12))
		if !aborted {
			h.op(4, ok, "poll", pl(1, 0, 10, 1, 11, 3, 12))
		}
	}
	runPairs(t, []pair{{
		name: "int-poll-skip",
		bad: func(h *hist) {
			written(h, false)
			h.op(3, ok, "poll", pl(1, 0, 10, 3, 12))
		},
		good: func(h *hist) {
			written(h, true)
			h.op(3, ok, "poll", pl(1, 0, 10, 3, 12))
		},
		want: []Anomaly{IntPollSkip},
	}, {
		name: "poll-skip",
		bad: func(h *hist) {
			written(h, false)
			h.op(3, ok, "poll", pl(1, 0, 10))
			h.op(3, ok, "poll", pl(1, 3, 12))
		},
		good: func(h *hist) {
			written(h, true)
			h.op(3, ok, "poll", pl(1, 0, 10))
			h.op(3, ok, "poll", pl(1, 3, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		name: "lost-delivery",
		bad: func(h *hist) {
			written(h, false)
			h.op(3, ok, "poll", cm(1, 4), pl(1, 0, 10, 3, 12))
			h.last().Group = "g"
		},
		good: func(h *hist) {
			written(h, true)
			h.op(3, ok, "poll", cm(1, 4), pl(1, 0, 10, 3, 12))
			h.last().Group = "g"
		},
		want: []Anomaly{IntPollSkip, LostDelivery},
	}, {
		// An aborted record amid others still leaves a skip of the others.
		name: "aborted records are discounted, not the skip",
		bad: func(h *hist) {
			written(h, true)
			h.op(0, ok, "send", snd(1, 13, 4))
			h.op(2, info, "poll", pl(1, 4, 13))
			h.op(5, ok, "poll", pl(1, 3, 12, 4, 13))
			h.op(3, ok, "poll", pl(1, 0, 10, 4, 13))
		},
		good: func(h *hist) {
			written(h, true)
			h.op(0, ok, "send", snd(1, 13, 4))
			h.op(2, info, "poll", pl(1, 4, 13))
			h.op(5, ok, "poll", pl(1, 3, 12, 4, 13))
			h.op(3, ok, "poll", pl(1, 0, 10, 3, 12, 4, 13))
		},
		want: []Anomaly{IntPollSkip},
	}})
}
