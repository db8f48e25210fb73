package partitionlog

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/kafkachaos/kafkachaos/histories"
)

const none = histories.NoOffset

// TestStep applies operations one by one to the model's step function.
func TestStep(t *testing.T) {
	m := Model([]int64{0, 2})
	apply := func(st interface{}, in, out interface{}, want bool) interface{} {
		t.Helper()
		ok, next := m.Step(st, in, out)
		if ok != want {
			t.Fatalf("step %s from %s = %v, want %v", m.DescribeOperation(in, out), m.DescribeState(st), ok, want)
		}
		return next
	}
	st := m.Init()
	apply(st, Append{10}, int64(2), false) // 0 comes first
	apply(st, Read{}, []histories.Record{{Offset: 0, Value: 10}}, false)
	st = apply(st, Append{10}, int64(0), true)
	apply(st, Append{11}, int64(0), false) // taken
	st = apply(st, Append{11}, none, true) // takes offset 1 of its own
	apply(st, Read{}, []histories.Record{{Offset: 0, Value: 10}}, true)
	apply(st, Read{}, []histories.Record{{Offset: 1, Value: 11}}, false) // no one learned 1
	st = apply(st, Append{12}, int64(2), true)
	apply(st, Read{}, []histories.Record{{Offset: 0, Value: 10}, {Offset: 2, Value: 12}}, false) // skips 11
	apply(st, Append{13}, int64(3), false)                                                       // not a known offset
	if got := m.DescribeState(st); got != "[0:10 ?:11 2:12]" {
		t.Errorf("state %q", got)
	}
}

func TestEqualAndHash(t *testing.T) {
	var a, b *state
	a, b = a.push(1, 0).push(2, none), b.push(1, 0).push(2, none)
	if !equal(a, b) || hash(a) != hash(b) {
		t.Error("equal logs built apart are not equal")
	}
	if c := (*state)(nil).push(1, 0).push(2, 1); equal(a, c) {
		t.Error("a known and an unknown offset are equal")
	}
	if equal(a, (*state)(nil)) || hash((*state)(nil)) != 0 {
		t.Error("the empty log")
	}
}

func TestKnownOffsets(t *testing.T) {
	ops := []porcupine.Operation{
		{Input: Append{1}, Output: int64(7)},
		{Input: Read{}, Output: []histories.Record{{Offset: 1, Value: 1}}},
		{Input: Append{2}, Output: none},
		{Input: Append{3}, Output: int64(2)},
	}
	if got := KnownOffsets(ops); len(got) != 2 || got[0] != 2 || got[1] != 7 {
		t.Errorf("KnownOffsets = %v, want [2 7]", got)
	}
}

func TestDescriptions(t *testing.T) {
	rs := make([]histories.Record, 8)
	for i := range rs {
		rs[i] = histories.Record{Offset: int64(i), Value: int64(10 + i)}
	}
	if got := describeRecords(rs); got != "[0:10 1:11 2:12 …2 more… 5:15 6:16 7:17]" {
		t.Errorf("describeRecords = %q", got)
	}
	var l *state
	for i := int64(0); i < 8; i++ {
		off := i
		if i == 7 {
			off = none
		}
		l = l.push(100+i, off)
	}
	if got := describeState(l); got != "[…2 earlier… 2:102 3:103 4:104 5:105 6:106 ?:107]" {
		t.Errorf("describeState = %q", got)
	}
}

// TestHoldsOnLongLogs checks the jump-pointer search against the log it was
// built from: every slice holds, and a slice with one wrong value, a
// missing entry or an offset past the end does not.
func TestHoldsOnLongLogs(t *testing.T) {
	var l *state
	var entries []histories.Record // known offsets only, in order
	for i := int64(0); i < 2000; i++ {
		off := 3 * i // gaps of two
		if i%7 == 3 {
			l = l.push(-i, none) // an entry no read saw
		}
		l = l.push(i, off)
		entries = append(entries, histories.Record{Offset: off, Value: i})
	}
	for start := 0; start < len(entries); start += 37 {
		end := min(start+3, len(entries))
		rs := entries[start:end]
		want := true
		for _, r := range rs[1:] {
			if r.Value%7 == 3 {
				want = false // the unseen entry sits between the two
			}
		}
		if got := l.holds(rs); got != want {
			t.Fatalf("holds(%v) = %v, want %v", rs, got, want)
		}
		bad := append([]histories.Record(nil), rs...)
		bad[0].Value++
		if l.holds(bad) {
			t.Fatalf("holds(%v) with a wrong value", bad)
		}
	}
	if l.holds([]histories.Record{{Offset: 3 * 2000, Value: 2000}}) {
		t.Fatal("holds an offset past the end")
	}
	if l.holds([]histories.Record{{Offset: 1, Value: 0}}) {
		t.Fatal("holds an offset in a gap")
	}
}
