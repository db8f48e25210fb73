package client

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/client/clienttest"
)

// TestCloseEndsWithoutCrashing: a clean Close ends a consumer (no op of its
// process follows) without crashing it, even with a crash requested that
// never fired, so a fault awaiting that crash cannot count the close as it;
// a crash that takes effect both ends and crashes.
func TestCloseEndsWithoutCrashing(t *testing.T) {
	e := startCluster(t, 1)
	rec := NewMemRecorder()
	procs := &Processes{}
	produce(t, e, rec, procs, 0, 5)
	a := newGroupConsumer(t, e, rec, procs, CommitAfterProcessing)
	pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
	if err := a.Crash(CrashBeforeCommit); err != nil {
		t.Fatal(err)
	}
	if a.Ended() || a.Crashed() {
		t.Fatalf("before its next poll: ended %v, crashed %v; want neither", a.Ended(), a.Crashed())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if !a.Ended() || a.Crashed() {
		t.Fatalf("after Close: ended %v, crashed %v; want ended only", a.Ended(), a.Crashed())
	}

	produce(t, e, rec, procs, 5, 10) // a committed what it read
	b := newGroupConsumer(t, e, rec, procs, CommitAfterProcessing)
	pollUntil(t, b, rec, func(v []int64) bool { return len(v) > 0 })
	if err := b.Crash(CrashAnywhere); err != nil {
		t.Fatal(err)
	}
	if !b.Ended() || !b.Crashed() {
		t.Fatalf("after a crash: ended %v, crashed %v; want both", b.Ended(), b.Crashed())
	}
	clienttest.CheckPaired(t, rec.Ops())
}
