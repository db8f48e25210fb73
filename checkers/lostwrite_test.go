package checkers

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestLostWriteAndUnseen(t *testing.T) {
	runPairs(t, []pair{{
		name: "lost-write: read past an acked write",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 12, 2))
			h.op(1, ok, "poll", pl(1, 0, 10, 2, 12))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 12, 2))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		// The reader also skipped offset 1 inside its poll.
		want: []Anomaly{LostWrite, Unseen, IntPollSkip},
	}, {
		name: "unseen: acked, never read, nobody read past it",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{Unseen},
		ops:  []int64{1},
	}, {
		name: "lost-write of an info send proven by a read of its other value",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(1, 10, 0), snd(2, 20, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(2, 0, 20))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(1, 10, 0), snd(2, 20, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		// The transaction committed without 10: torn as well (torn.go).
		want: []Anomaly{LostWrite, TornTransaction},
		ops:  []int64{0, 3},
	}, {
		name: "a read only by an info poll does not count as seen",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, info, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		want: []Anomaly{LostWrite, Unseen},
	}, {
		name: "failed sends are never lost",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, fail, "send", snd(1, 10, histories.NoOffset))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		want: []Anomaly{LostWrite, Unseen},
	}})
}

func TestLostWriteCaseNamesBound(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(0, ok, "send", snd(1, 11, 1))
	h.op(1, ok, "poll", pl(1, 1, 11))
	c := only(t, check(t, h, Options{}), LostWrite)
	if *c.Key != 1 || *c.Value != 10 || !slices.Equal(c.Offsets, []int64{0, 1}) {
		t.Fatalf("case %+v", c)
	}
	expectOps(t, c, 0, 2)
}
