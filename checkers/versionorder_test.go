package checkers

import (
	"slices"
	"testing"
)

// Offsets far apart go to the log's overflow map; later offsets may grow the
// dense part past them. Dense indexes must still follow offset order.
func TestSparseOffsets(t *testing.T) {
	offs := []int64{200_000, 65_000, 195_000, 250_000, 1 << 40}
	sorted := slices.Clone(offs)
	slices.Sort(sorted)
	sendAll := func(h *hist) {
		for i, o := range offs {
			h.op(10+int64(i), ok, "send", snd(1, 100+int64(i), o))
		}
	}
	var all []int64
	for _, o := range sorted {
		all = append(all, o, 100+int64(slices.Index(offs, o)))
	}
	runPairs(t, []pair{{
		name: "skip over an overflowed offset",
		bad: func(h *hist) {
			sendAll(h)
			h.op(1, ok, "poll", pl(1, all[:4]...)) // 65000, 195000
			h.op(1, ok, "poll", pl(1, all[6:]...)) // 250000, 1<<40: skips 200000
			h.op(2, ok, "poll", pl(1, all...))
		},
		good: func(h *hist) {
			sendAll(h)
			h.op(1, ok, "poll", pl(1, all[:4]...))
			h.op(1, ok, "poll", pl(1, all[4:]...))
			h.op(2, ok, "poll", pl(1, all...))
		},
		want: []Anomaly{PollSkip},
	}})
}

func TestOffsetLogIndexesInOffsetOrder(t *testing.T) {
	var l offsetLog
	for i, o := range []int64{200_000, 65_000, 195_000, 250_000, 3} {
		l.put(o, logEntry{val: int64(i), slot: int32(i)})
	}
	l.seal()
	want := []int64{3, 65_000, 195_000, 200_000, 250_000}
	if !slices.Equal(l.byIndex, want) {
		t.Fatalf("byIndex %v, want %v", l.byIndex, want)
	}
	for i, o := range want {
		if got := l.idx(o); got != int32(i) {
			t.Fatalf("idx(%d) = %d, want %d", o, got, i)
		}
	}
	if l.idx(4) != -1 || l.idx(1<<50) != -1 {
		t.Fatal("unobserved offsets must have no index")
	}
}
