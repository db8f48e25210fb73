package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// movingBrokers is fakeBrokers with one partition whose replicas
// Reassign replaces; failMoves makes that many moves fail after the
// controller took them (as a move that timed out does).
type movingBrokers struct {
	*fakeBrokers
	replicas  []int32
	moves     [][]int32
	failMoves int
}

func (m *movingBrokers) Replicas(context.Context, string, int32) ([]int32, error) {
	return slices.Clone(m.replicas), nil
}

func (m *movingBrokers) Reassign(_ context.Context, _ string, _ int32, target []int32) error {
	m.moves = append(m.moves, slices.Clone(target))
	m.replicas = slices.Clone(target)
	if m.failMoves > 0 {
		m.failMoves--
		return errors.New("not complete after 60s")
	}
	return nil
}

func (m *movingBrokers) Verified(cluster.Effect) string { return "test: moves read back" }

func reassignOn(m *movingBrokers) Fault {
	return Reassign(m, Targeting{Provider: m, Topic: "in", Partition: 0, IntN: func(n int) int { return n - 1 }})
}

// Start moves one replica to the one broker that holds none and is up;
// Stop moves it back to the list Start found, once however often it is
// called.
func TestReassignMovesOneReplicaAndBack(t *testing.T) {
	m := &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{2, 3}}
	f := reassignOn(m)
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if want := []int32{2, 1}; !slices.Equal(m.replicas, want) {
		t.Errorf("after Start replicas %v, want %v (the last replica replaced by broker 1, the only free one)", m.replicas, want)
	}
	for range 2 {
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if want := [][]int32{{2, 1}, {2, 3}}; !slices.EqualFunc(m.moves, want, slices.Equal) {
		t.Errorf("moves %v, want %v: one move there, one back", m.moves, want)
	}
	d := f.(Detailer).Detail().(map[string]any)
	if d["verified"] != "test: moves read back" || d["took"] == nil || d["back-took"] == nil {
		t.Errorf("detail %v: want what was verified and how long each move took", d)
	}
}

// A move that failed may still complete: Stop moves back all the same,
// and a move back that fails is an error a later Stop retries.
func TestReassignHealsAFailedMove(t *testing.T) {
	m := &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{2, 3}, failMoves: 2}
	f := reassignOn(m)
	if err := f.Start(t.Context()); err == nil {
		t.Fatal("Start returned nil for a move that did not complete")
	}
	if err := f.Stop(t.Context()); err == nil || !strings.Contains(err.Error(), "reassign back") {
		t.Fatalf("Stop = %v, want the failed move back named", err)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.replicas, []int32{2, 3}) || len(m.moves) != 3 {
		t.Errorf("replicas %v after moves %v: want back on [2 3] after the retried heal", m.replicas, m.moves)
	}
}

// With every broker that is up holding a replica there is nowhere to move
// one: Start says so and asks for no move, and Stop has nothing to undo.
func TestReassignNeedsAFreeBrokerUp(t *testing.T) {
	m := &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{2, 3}}
	m.setDown(1, true)
	f := reassignOn(m)
	if err := f.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "no broker to move one to") {
		t.Errorf("Start = %v, want no free broker named", err)
	}
	if err := f.Stop(t.Context()); err != nil || len(m.moves) != 0 {
		t.Errorf("Stop = %v, moves %v: want nothing asked", err, m.moves)
	}
}

// removingBrokers is fakeBrokers that can unregister a broker.
type removingBrokers struct{ *fakeBrokers }

func (r removingBrokers) Unregister(_ context.Context, n int32) error {
	return r.log("unregister %d", n)
}

// remove-broker stops the target cleanly and then unregisters it, in that
// order (a running broker would register again); the heal starts it. A
// failed unregistration still leaves the broker to be started.
func TestRemoveBrokerStopsUnregistersAndStarts(t *testing.T) {
	for _, tc := range []struct {
		failOn string
		want   []string
	}{
		{"", []string{"stop 2", "unregister 2", "start 2"}},
		{"unregister 2", []string{"stop 2", "unregister 2", "start 2"}},
	} {
		f := newFakeBrokers()
		f.failOn = tc.failOn
		r := removingBrokers{f}
		fault := RemoveBrokerTarget(r, Targeting{Provider: r, Topic: "in", IntN: seq}, TargetLeader)
		err := fault.Start(t.Context())
		if (err != nil) != (tc.failOn != "") {
			t.Errorf("fail on %q: Start = %v", tc.failOn, err)
		}
		if err := fault.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := f.Calls(); !slices.Equal(got[len(got)-3:], tc.want) {
			t.Errorf("fail on %q: calls %v, want them to end %v", tc.failOn, got, tc.want)
		}
		d := fault.(Detailer).Detail().(map[string]any)
		if tc.failOn == "" && (d["verified"] != "fake unregister checked" || d["heal-verified"] != "fake restart checked") {
			t.Errorf("detail %v: want the unregistration's and the restart's checks named", d)
		}
	}
}
