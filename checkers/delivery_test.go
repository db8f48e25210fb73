package checkers

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestDelivery(t *testing.T) {
	sent := func(h *hist) {
		h.op(0, ok, "send", snd(1, 10, 0))
		h.op(0, ok, "send", snd(1, 11, 1))
	}
	runPairs(t, []pair{{
		name: "duplicate-delivery",
		bad: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, ok, "poll", pl(1, 1, 11))
			h.last().Group = "g"
		},
		good: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, ok, "poll", pl(1, 1, 11))
			h.last().Group = "other"
		},
		want: []Anomaly{DuplicateDelivery},
		ops:  []int64{2, 3},
	}, {
		name: "duplicate-delivery needs two ok ops",
		bad: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, ok, "txn", pl(1, 0, 10))
			h.last().Group = "g"
		},
		good: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, info, "txn", pl(1, 0, 10))
			h.last().Group = "g"
		},
		want: []Anomaly{DuplicateDelivery},
	}, {
		name: "lost-delivery",
		bad: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 1, 11))
			h.last().Group = "g"
			h.op(1, ok, "commit", cm(1, 2))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", pl(1, 1, 11))
			h.last().Group = "g"
			h.op(1, ok, "commit", cm(1, 0))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostDelivery},
		ops:  []int64{3, 0},
	}, {
		name: "lost-delivery counts commits inside ok txns only",
		bad: func(h *hist) {
			sent(h)
			h.op(1, ok, "txn", pl(1, 1, 11), cm(1, 2))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			sent(h)
			h.op(1, fail, "txn", pl(1, 1, 11), cm(1, 2))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostDelivery},
	}, {
		// Commit before processing: the client records the commit as a mop
		// of the poll op, ahead of the poll mop. Member 1 commits and
		// crashes before processing (its poll is info); member 2 resumes
		// after the commit and commits in its own ok poll.
		name: "lost-delivery counts commits inside ok polls",
		bad: func(h *hist) {
			sent(h)
			h.op(0, ok, "send", snd(1, 12, 2))
			h.op(1, info, "poll", cm(1, 2), pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, ok, "poll", cm(1, 3), pl(1, 2, 12))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			sent(h)
			h.op(0, ok, "send", snd(1, 12, 2))
			h.op(1, ok, "poll", cm(1, 2), pl(1, 0, 10, 1, 11))
			h.last().Group = "g"
			h.op(2, ok, "poll", cm(1, 3), pl(1, 2, 12))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{LostDelivery},
	}, {
		// An info poll's commit may not have happened: alone it proves no
		// loss, whichever f the op has.
		name: "lost-delivery ignores commits of info polls",
		bad: func(h *hist) {
			sent(h)
			h.op(1, ok, "poll", cm(1, 2), pl(1, 1, 11))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			sent(h)
			h.op(1, info, "poll", cm(1, 2), pl(1, 1, 11))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostDelivery},
	}})
}

// A record is its offset and its value: after a truncation the log writes
// other records at the same offsets, and a group that reads both has
// processed each once (inconsistent-offsets reports the reuse). Reading
// either record twice is still a duplicate delivery.
func TestDeliveryAcrossReusedOffsets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second int64 // the value the group's second read finds at offset 0
		want   []Anomaly
	}{
		{"other record at the reused offset", 20, []Anomaly{InconsistentOffsets}},
		{"the lost record again", 10, []Anomaly{DuplicateDelivery, InconsistentOffsets}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hist{}
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.last().Group = "g"
			h.op(2, ok, "send", snd(1, 20, 0))
			h.op(4, ok, "poll", pl(1, 0, tc.second))
			h.last().Group = "g"
			h.op(3, ok, "poll", pl(1, 0, 20))
			expectOnly(t, check(t, h, Options{}), tc.want...)
		})
	}
}

// A truncated log that wrote its offsets again: the final read_committed
// reads pass over an aborted record at a reused offset, and over the offset
// of a record the log lost after it was read. Neither is a skip; a committed
// record missing there is lost-write and unseen.
func TestSkipOverAReusedOffset(t *testing.T) {
	for _, tc := range []struct {
		name      string
		readFirst bool           // an ok poll read the first records before the truncation
		mid       histories.Type // the outcome of the send at offset 1 after it
		want      []Anomaly
	}{
		{"aborted, first records unread", false, fail, []Anomaly{InconsistentOffsets, LostWrite, Unseen}},
		{"committed, first records unread", false, ok, []Anomaly{InconsistentOffsets, IntPollSkip, LostWrite, Unseen}},
		{"aborted, first records read", true, fail, []Anomaly{InconsistentOffsets, LostAfterRead}},
		{"committed, first records read", true, ok, []Anomaly{InconsistentOffsets, LostAfterRead, LostWrite, Unseen}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hist{}
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "send", snd(1, 11, 1))
			h.op(2, ok, "send", snd(1, 12, 2))
			if tc.readFirst {
				h.op(5, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
			}
			h.op(3, ok, "send", snd(1, 20, 0))
			h.op(4, tc.mid, "txn", snd(1, 21, 1))
			h.op(6, ok, "send", snd(1, 22, 2))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 20, 2, 22))
			expectOnly(t, check(t, h, Options{}), tc.want...)
		})
	}
}
