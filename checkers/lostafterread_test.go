package checkers

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// finalAssign and finalPoll append ops of the final reads (Extra final).
func (h *hist) finalAssign(p int64, ks ...int64) int64 {
	i := h.keys(p, ok, "assign", ks...)
	h.markFinal()
	return i
}

func (h *hist) finalPoll(p int64, m ...histories.Mop) int64 {
	i := h.op(p, ok, "poll", m...)
	h.markFinal()
	return i
}

func (h *hist) markFinal() {
	h.last().Extra = map[string]json.RawMessage{"final": json.RawMessage("true")}
}

// twoAcked: two acked sends to key 1 that consumer 1 reads (ops 0-2).
func twoAcked(h *hist) {
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(0, ok, "send", snd(1, 11, 1))
	h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
}

func TestLostAfterRead(t *testing.T) {
	runPairs(t, []pair{{
		name: "read, then missing from the final reads",
		bad: func(h *hist) {
			twoAcked(h)
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10))
		},
		good: func(h *hist) {
			twoAcked(h)
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostAfterRead},
		ops:  []int64{1, 2, 4},
	}, {
		name: "an info send read, then missing",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, info, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, info, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostAfterRead},
		ops:  []int64{1, 2, 4},
	}, {
		name: "truncated and overwritten: also inconsistent offsets",
		bad: func(h *hist) {
			twoAcked(h)
			h.op(3, ok, "send", snd(1, 12, 1))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10, 1, 12))
		},
		good: func(h *hist) {
			twoAcked(h)
			h.op(3, ok, "send", snd(1, 12, 2))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{InconsistentOffsets, LostAfterRead},
	}, {
		// Without final reads of key 1 nothing says the log lost 11.
		name: "key without final reads",
		bad: func(h *hist) {
			twoAcked(h)
			h.finalAssign(9, 1, 2)
			h.finalPoll(9, pl(1, 0, 10))
		},
		good: func(h *hist) {
			twoAcked(h)
			h.finalAssign(9, 2)
			h.finalPoll(9, pl(2))
		},
		want: []Anomaly{LostAfterRead},
	}, {
		// Only reads before the final reads began count: the final reads
		// read to the end they saw when they began.
		name: "read after the final reads began",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{LostAfterRead},
	}, {
		// An info assign may not have taken the keys: no coverage.
		name: "final assign not ok",
		bad: func(h *hist) {
			twoAcked(h)
			h.finalAssign(9, 1)
			h.finalPoll(9, pl(1, 0, 10))
		},
		good: func(h *hist) {
			twoAcked(h)
			h.keys(9, info, "assign", 1)
			h.markFinal()
			h.finalPoll(9, pl(1, 0, 10))
		},
		want: []Anomaly{LostAfterRead},
	}})
}

// An aborted record read by a read_uncommitted consumer is G1a, and its
// absence from the read_committed final reads is no loss.
func TestLostAfterReadSkipsAbortedRecords(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(2, fail, "txn", snd(1, 11, 1))
	h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
	h.finalAssign(9, 1)
	h.finalPoll(9, pl(1, 0, 10))
	expectOnly(t, check(t, h, Options{}), G1a)
}

// An info txn's records that a read_uncommitted consumer read may have been
// aborted by the coordinator: absent from the final reads, they prove no loss.
func TestLostAfterReadSkipsInfoTxns(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(2, info, "txn", snd(1, 11, 1))
	h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
	h.finalAssign(9, 1)
	h.finalPoll(9, pl(1, 0, 10))
	expectOnly(t, check(t, h, Options{}))
}

// A value read by nobody before the final reads is unseen, never also
// lost-after-read; a value nobody read at all is not lost-after-read.
func TestLostAfterReadDoesNotRepeatUnseen(t *testing.T) {
	h := &hist{}
	twoAcked(h)
	h.op(0, ok, "send", snd(1, 12, 2))
	h.finalAssign(9, 1)
	h.finalPoll(9, pl(1, 0, 10))
	res := check(t, h, Options{})
	expectOnly(t, res, LostAfterRead, Unseen)
	if c := only(t, res, Unseen); *c.Value != 12 {
		t.Fatalf("unseen %d, want 12", *c.Value)
	}
	c := only(t, res, LostAfterRead)
	if *c.Value != 11 || *c.Key != 1 || len(c.Offsets) != 1 || c.Offsets[0] != 1 {
		t.Fatalf("lost-after-read case %+v, want value 11 of key 1 at offset 1", c)
	}
	want := "value 11 of key 1 was acknowledged at offset 1 and read by op 2, but the final reads of key 1 (op 5) no longer contain it"
	if !strings.Contains(c.Explanation, want) {
		t.Fatalf("explanation %q, want it to contain %q", c.Explanation, want)
	}
}

// The final marker survives both codecs: JSONL and EDN round trips of a
// history still show its lost-after-read.
func TestLostAfterReadSurvivesRoundTrips(t *testing.T) {
	h := &hist{}
	twoAcked(h)
	h.finalAssign(9, 1)
	h.finalPoll(9, pl(1, 0, 10))

	var jl bytes.Buffer
	w := histories.NewWriter(&jl)
	for i := range h.ops {
		if err := w.Append(&h.ops[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var edn bytes.Buffer
	if err := histories.ExportEDN(&edn, histories.FromOps(h.ops)); err != nil {
		t.Fatal(err)
	}
	fromEDN, warns, err := histories.ReadEDN(&edn, "h.edn")
	if err != nil || len(warns) > 0 {
		t.Fatalf("EDN import: %v %v", err, warns)
	}
	for name, ops := range map[string][]histories.Op{"jsonl": readJSONL(t, jl.Bytes()), "edn": fromEDN} {
		res, err := Check(Ops(ops), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		expectOnly(t, res, LostAfterRead)
	}
}

func readJSONL(t *testing.T, data []byte) []histories.Op {
	t.Helper()
	r := histories.NewReader(bytes.NewReader(data), "h.jsonl")
	var ops []histories.Op
	for {
		op, err := r.Next()
		if err == io.EOF {
			return ops
		}
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, *op.Clone())
	}
}
