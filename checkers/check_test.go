package checkers

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestStats(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0), snd(2, 20, 0))
	h.op(0, info, "send", snd(1, 11, histories.NoOffset))
	h.op(1, ok, "poll", polls(pl(1, 0, 10), pl(2, 0, 20)))
	h.op(histories.NemesisProcess, info, "kill")
	s := check(t, h, Options{}).Stats
	if s.Ops != 4 || s.Keys != 2 || s.Writes != 3 || s.AckedWrite != 2 || s.Reads != 2 {
		t.Fatalf("stats %+v", s)
	}
	if s.OpsByType["send ok"] != 1 || s.OpsByType["send info"] != 1 || s.OpsByType["kill info"] != 1 {
		t.Fatalf("ops by type %v", s.OpsByType)
	}
}

func TestUnknownClientFIsAWarning(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "debug-topic-partitions")
	h.op(histories.NemesisProcess, info, "partition")
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(1, ok, "poll", pl(1, 0, 10))
	res := check(t, h, Options{})
	expectOnly(t, res)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "debug-topic-partitions") {
		t.Fatalf("warnings %q", res.Warnings)
	}
}

// A history without an acknowledged send or a read stays valid but says that
// nothing was checked; one acknowledged send or one record read is enough.
func TestNothingCheckedIsAWarning(t *testing.T) {
	cases := []struct {
		name  string
		build func(h *hist)
		warn  bool
	}{
		{"empty", func(h *hist) {}, true},
		{"assign, failed and info sends, empty polls", func(h *hist) {
			h.keys(0, ok, "assign", 1)
			h.op(0, fail, "send", snd(1, 10, histories.NoOffset))
			h.op(0, info, "send", snd(1, 11, histories.NoOffset))
			h.op(1, ok, "poll", histories.Mop{F: histories.MPoll})
		}, true},
		{"one acknowledged send", func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10))
		}, false},
		{"one record read by an info poll", func(h *hist) {
			h.op(0, info, "send", snd(1, 10, histories.NoOffset))
			h.op(1, info, "poll", pl(1, 0, 10))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &hist{}
			c.build(h)
			res := check(t, h, Options{})
			expectOnly(t, res)
			if got := slices.Contains(res.Warnings, nothingChecked); got != c.warn {
				t.Fatalf("nothing-checked warning = %v, want %v; warnings %q", got, c.warn, res.Warnings)
			}
		})
	}
}

// An unreadable rebalance-log is said once for the whole history; the EDN
// importer's verbatim copy of a log (a JSON string) is not unreadable.
func TestRebalanceLogWarnings(t *testing.T) {
	withLog := func(h *hist, raw string, rb *histories.Rebalance) {
		h.op(1, ok, "poll", pl(1, 0, 10))
		h.last().Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(raw)}
		h.last().Rebalance = rb
	}
	t.Run("unreadable", func(t *testing.T) {
		h := &hist{}
		h.op(0, ok, "send", snd(1, 10, 0))
		withLog(h, `{"keys":[1]}`, nil)
		withLog(h, `7`, nil)
		withLog(h, `[{"keys":"x"}]`, nil)
		res := check(t, h, Options{})
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "3 ops have a rebalance-log") ||
			!strings.Contains(res.Warnings[0], "op index 1 ") {
			t.Fatalf("warnings %q", res.Warnings)
		}
	})
	t.Run("read by the importer", func(t *testing.T) {
		h := &hist{}
		h.op(0, ok, "send", snd(1, 10, 0))
		withLog(h, `"[{:type :revoked, :keys [1]}]"`, &histories.Rebalance{Revoked: []int64{1}})
		withLog(h, ` "[]"`, nil)
		withLog(h, `[{"keys":[1]}]`, nil)
		if res := check(t, h, Options{}); len(res.Warnings) != 0 {
			t.Fatalf("warnings %q", res.Warnings)
		}
	})
}

func TestBadInputIsAnError(t *testing.T) {
	cases := []struct {
		name string
		op   histories.Op
		want string
	}{
		{"type", histories.Op{Index: 1, Type: "done", F: "send"}, "op index 1: field type"},
		{"send offset", histories.Op{Index: 1, Type: ok, F: "send", Mops: []histories.Mop{snd(1, 1, -7)}}, "value[0]: send to key 1: negative offset -7"},
		{"poll offset", histories.Op{Index: 1, Type: ok, F: "poll", Mops: []histories.Mop{pl(3, -2, 1)}}, "poll of key 3: negative offset -2"},
		{"mop", histories.Op{Index: 1, Type: ok, F: "txn", Mops: []histories.Mop{{F: "read"}}}, `unknown micro-op "read"`},
		{"index", histories.Op{Index: 0, Type: ok, F: "crash"}, "op index 0: index not greater"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := Ops{{Index: 0, Type: ok, F: "crash"}, c.op}
			_, err := Check(h, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// failingSource fails after handing out its ops, as a file cut short by a
// read error would, and counts its scans.
type failingSource struct {
	ops   Ops
	fail  bool
	scans int
}

var errGone = errors.New("gone")

func (s *failingSource) Scan(f func(*histories.Op) error) error {
	s.scans++
	if err := s.ops.Scan(f); err != nil {
		return err
	}
	if s.fail {
		return errGone
	}
	return nil
}

func TestSourceErrorsPropagate(t *testing.T) {
	_, err := Check(&failingSource{ops: Ops{{Index: 0, Type: ok, F: "crash"}}, fail: true}, Options{})
	if !errors.Is(err, errGone) {
		t.Fatalf("err = %v", err)
	}
}

// Pass 2 replays what pass 1 kept: the history is read once.
func TestSourceScannedOnce(t *testing.T) {
	src := &failingSource{ops: Ops{{Index: 0, Type: ok, F: "crash"}}}
	if _, err := Check(src, Options{}); err != nil || src.scans != 1 {
		t.Fatalf("err %v, %d scans", err, src.scans)
	}
}

func TestMaxCasesKeepsCountsExact(t *testing.T) {
	h := &hist{}
	for v := int64(0); v < 10; v++ {
		h.op(0, ok, "send", snd(1, v, v))
	}
	res := check(t, h, Options{MaxCases: 3})
	if len(res.Anomalies[Unseen]) != 3 || res.Counts[Unseen] != 10 {
		t.Fatalf("%d cases, count %d", len(res.Anomalies[Unseen]), res.Counts[Unseen])
	}
}

func TestReusedOpIsCopied(t *testing.T) {
	// A source that hands out the same Op value each time must give the
	// same verdict as a slice.
	h := &hist{}
	threeSent(h)
	h.op(1, ok, "poll", pl(1, 0, 10, 2, 12))
	want := check(t, h, Options{})
	got, err := Check(reusingSource(h.ops), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(anomalyNames(got), ",") != strings.Join(anomalyNames(want), ",") || got.Counts[LostWrite] != want.Counts[LostWrite] {
		t.Fatalf("reused op: %v, slice: %v", got.Counts, want.Counts)
	}
}

type reusingSource []histories.Op

func (s reusingSource) Scan(f func(*histories.Op) error) error {
	var op histories.Op
	for _, o := range s {
		op = o
		op.Mops = append(op.Mops[:0:0], o.Mops...)
		if err := f(&op); err != nil {
			return err
		}
		op.Mops[0] = histories.Mop{} // scribble: the checker must not keep it
	}
	return nil
}

func anomalyNames(r Result) []string {
	out := make([]string, len(r.AnomalyTypes))
	for i, a := range r.AnomalyTypes {
		out[i] = string(a)
	}
	return out
}
