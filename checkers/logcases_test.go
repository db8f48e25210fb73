package checkers

import (
	"slices"
	"testing"
)

func TestVersionOrderAnomalies(t *testing.T) {
	runPairs(t, []pair{{
		name: "inconsistent-offsets",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 11))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		// 11 was never sent: only the conflict is an anomaly.
		want: []Anomaly{InconsistentOffsets},
		ops:  []int64{0, 1},
	}, {
		name: "duplicate",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "send", snd(1, 11, 1))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "send", snd(1, 11, 1))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		// Reads are placed by their own offsets, which ascend here, so the
		// duplicate does not also make the poll non-monotonic.
		want: []Anomaly{Duplicate},
		ops:  []int64{0, 2},
	}, {
		name: "duplicate seen only by an info poll",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(2, info, "poll", pl(1, 3, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(2, info, "poll", pl(1, 0, 10))
		},
		want: []Anomaly{Duplicate},
		ops:  []int64{0, 2},
	}})
}

func TestDuplicateListsEveryOffset(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 5))
	h.op(1, ok, "poll", pl(1, 2, 10, 5, 10, 9, 10))
	c := only(t, check(t, h, Options{}), Duplicate)
	if !slices.Equal(c.Offsets, []int64{2, 5, 9}) {
		t.Fatalf("offsets %v, want [2 5 9]", c.Offsets)
	}
}
