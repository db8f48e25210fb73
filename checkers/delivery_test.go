package checkers

import "testing"

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
	}})
}
