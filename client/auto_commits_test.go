package client

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// A proven commit is taken once by the close whose offsets it stored
// exactly, and otherwise recorded as an ok commit op; Past tells a commit
// past a poll's first record of a key from one before it.
func TestAutoCommitsProvenRecordedOnce(t *testing.T) {
	var a AutoCommits
	a.Note(map[histories.Key]int64{0: 5, 1: 7})
	a.Note(nil)
	got := NewFetched()
	got.Add(0, histories.Record{Offset: 5, Value: 1})
	if a.Past(got) {
		t.Error("a commit at 5 is past the record at 5")
	}
	got.Add(1, histories.Record{Offset: 6, Value: 2})
	if !a.Past(got) {
		t.Error("a commit at 7 is not past the record at 6")
	}
	if a.Proven(map[histories.Key]int64{0: 5, 1: 8}) {
		t.Error("proven with key 1 at 8, stored at 7")
	}
	if !a.Proven(map[histories.Key]int64{0: 5}) || a.Proven(map[histories.Key]int64{0: 5}) {
		t.Error("want the commit proven once")
	}
	a.Note(map[histories.Key]int64{2: 3})
	rec := NewMemRecorder()
	a.Record(&ConsumerOps{Recorder: rec, Process: 4, Group: "g"})
	a.Record(&ConsumerOps{Recorder: rec, Process: 4, Group: "g"})
	ops := rec.Ops()
	if len(ops) != 2 || ops[1].Type != histories.OK || ops[1].Mops[0].Offsets[2] != 3 || ops[1].Process != 4 {
		t.Errorf("recorded %v, want one ok commit of key 2 at 3", ops)
	}
}
