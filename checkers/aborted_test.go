package checkers

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestAbortedAndPrecommittedReads(t *testing.T) {
	runPairs(t, []pair{{
		name: "G1a: ok poll reads a failed txn's value",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
		},
		want: []Anomaly{G1a},
		ops:  []int64{1, 0},
	}, {
		name: "G1a needs an ok reader",
		bad: func(h *hist) {
			h.op(0, fail, "send", snd(1, 10, histories.NoOffset))
			h.op(1, ok, "txn", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, fail, "send", snd(1, 10, histories.NoOffset))
			h.op(1, info, "txn", pl(1, 0, 10))
		},
		want: []Anomaly{G1a},
	}, {
		// A copier's failed txn sent 10 to offset 0 (aborted; 1 is its
		// marker), and its successor copied 10 again to offset 2. Reading
		// the aborted copy is G1a, and 10 is then at two offsets.
		name: "G1a of a re-copied value: the aborted copy's offset",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, ok, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, ok, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 2, 10))
		},
		want: []Anomaly{G1a, Duplicate},
		ops:  []int64{2, 0},
	}, {
		name: "G1a of a re-copied value: failed offset unknown",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, histories.NoOffset))
			h.op(1, ok, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, histories.NoOffset))
			h.op(1, ok, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 2, 10))
		},
		want: []Anomaly{G1a, Duplicate},
		ops:  []int64{2, 0},
	}, {
		// With the committed copy's offset unknown, only the failed send's
		// own offset proves an aborted read.
		name: "G1a of a re-copied value: committed offset unknown",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, ok, "txn", snd(1, 10, histories.NoOffset))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 1))
			h.op(1, ok, "txn", snd(1, 10, histories.NoOffset))
			h.op(2, ok, "poll", pl(1, 0, 10))
		},
		want: []Anomaly{G1a},
	}, {
		// An info re-copy that an ok read proves counts as taking effect,
		// at the offset it reported.
		name: "G1a of a re-copied value: info copy proven",
		bad: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, info, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 0, 10, 2, 10))
		},
		good: func(h *hist) {
			h.op(0, fail, "txn", snd(1, 10, 0))
			h.op(1, info, "txn", snd(1, 10, 2))
			h.op(2, ok, "poll", pl(1, 2, 10))
		},
		want: []Anomaly{G1a, Duplicate},
	}, {
		// The committed copy, not the later failed attempt, is the writer
		// that wr dependencies start from.
		name: "a re-copied value's writer is its committed sender",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 2), pl(2, 0, 20))
			h.op(1, ok, "txn", snd(2, 20, 0), pl(1, 2, 10))
			h.op(2, fail, "txn", snd(1, 10, 0))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 2))
			h.op(1, ok, "txn", snd(2, 20, 0), pl(1, 2, 10))
			h.op(2, fail, "txn", snd(1, 10, 0))
			h.op(3, ok, "poll", pl(2, 0, 20))
		},
		want: []Anomaly{G1c},
	}, {
		name: "precommitted-read: a txn reads its own send",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 0), pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 0), pl(2, 0, 20))
			h.op(1, ok, "send", snd(2, 20, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
		},
		want: []Anomaly{PrecommittedRead},
		ops:  []int64{0},
	}})
}

func TestCycles(t *testing.T) {
	// Two txns that each read the other's send: each must have committed
	// before the other, which no serial order allows.
	g1c := func(h *hist) {
		h.op(0, ok, "txn", snd(1, 10, 0), pl(2, 0, 20))
		h.op(1, ok, "txn", snd(2, 20, 0), pl(1, 0, 10))
	}
	oneWay := func(h *hist) {
		h.op(0, ok, "txn", snd(1, 10, 0), pl(2, 0, 20))
		h.op(1, ok, "txn", snd(2, 20, 0))
		h.op(2, ok, "poll", pl(1, 0, 10))
	}
	// Two txns whose sends interleave on two keys: T0 first on key 1, T1
	// first on key 2.
	g0 := func(h *hist) {
		h.op(0, ok, "txn", snd(1, 10, 0), snd(2, 21, 1))
		h.op(1, ok, "txn", snd(1, 11, 1), snd(2, 20, 0))
		h.op(2, ok, "poll", polls(pl(1, 0, 10, 1, 11), pl(2, 0, 20, 1, 21)))
	}
	inOrder := func(h *hist) {
		h.op(0, ok, "txn", snd(1, 10, 0), snd(2, 20, 0))
		h.op(1, ok, "txn", snd(1, 11, 1), snd(2, 21, 1))
		h.op(2, ok, "poll", polls(pl(1, 0, 10, 1, 11), pl(2, 0, 20, 1, 21)))
	}
	runPairs(t, []pair{
		{name: "G1c", bad: g1c, good: oneWay, want: []Anomaly{G1c}},
		{name: "G0 with WWDeps", opts: Options{WWDeps: true}, bad: g0, good: inOrder, want: []Anomaly{G0}},
		{name: "no G0 without WWDeps", bad: g1c, good: g0, want: []Anomaly{G1c}},
	})
}

func TestG1cCaseListsTheCycle(t *testing.T) {
	h := &hist{}
	h.op(5, ok, "send", snd(3, 30, 0)) // a bystander
	h.op(0, ok, "txn", snd(1, 10, 0), pl(2, 0, 20))
	h.op(1, ok, "txn", snd(2, 20, 0), pl(1, 0, 10), pl(3, 0, 30))
	c := only(t, check(t, h, Options{}), G1c)
	if len(c.Cycle) != 2 || len(c.Ops) != 2 {
		t.Fatalf("cycle %+v", c)
	}
	for i, e := range c.Cycle {
		next := c.Cycle[(i+1)%len(c.Cycle)]
		if e.To != next.From || e.Kind != "wr" {
			t.Fatalf("edges do not chain: %+v", c.Cycle)
		}
	}
	if !(c.Ops[0] == 1 && c.Ops[1] == 2 || c.Ops[0] == 2 && c.Ops[1] == 1) {
		t.Fatalf("ops %v, want 1 and 2", c.Ops)
	}
}

func TestLongCycleFoundWithoutRecursion(t *testing.T) {
	// A ring of n txns, each reading its predecessor's send: one G1c.
	const n = 200000
	h := &hist{}
	for i := int64(0); i < n; i++ {
		prev := (i + n - 1) % n
		h.op(i, ok, "txn", snd(i, i, 0), pl(prev, 0, prev))
	}
	res := check(t, h, Options{})
	expectOnly(t, res, G1c)
	if got := len(only(t, res, G1c).Cycle); got != n {
		t.Fatalf("cycle length %d, want %d", got, n)
	}
}
