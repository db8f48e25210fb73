package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// growingBrokers is movingBrokers that can add a broker (id 4) and remove
// it again; failRemoves makes that many removals fail.
type growingBrokers struct {
	*movingBrokers
	added       []int32
	removed     []int32
	failAdd     bool
	failRemoves int
}

func (g *growingBrokers) AddBroker(context.Context) (int32, error) {
	if g.failAdd {
		return -1, errors.New("broker 4 not unfenced within 5s")
	}
	g.added = append(g.added, 4)
	return 4, nil
}

func (g *growingBrokers) RemoveAdded(_ context.Context, id int32) error {
	if g.failRemoves > 0 {
		g.failRemoves--
		return errors.New("broker 4 did not shut down cleanly")
	}
	g.removed = append(g.removed, id)
	return nil
}

func addBrokerOn(g *growingBrokers) Fault {
	return AddBroker(g, g, Targeting{Provider: g, Topic: "in", Partition: 0, IntN: func(n int) int { return n - 1 }})
}

// Start adds the broker, then moves one replica onto it; Stop moves the
// replica back, then removes the broker, once however often it is called.
// The detail names the new broker.
func TestAddBrokerMovesAReplicaOntoItAndBack(t *testing.T) {
	g := &growingBrokers{movingBrokers: &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{1, 2, 3}}}
	f := addBrokerOn(g)
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 4}; !slices.Equal(g.replicas, want) {
		t.Errorf("after Start replicas %v, want %v (the last replica replaced by new broker 4)", g.replicas, want)
	}
	for range 2 {
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(g.added, []int32{4}) || !slices.Equal(g.removed, []int32{4}) {
		t.Errorf("added %v, removed %v: want broker 4 added once and removed once", g.added, g.removed)
	}
	if want := [][]int32{{1, 2, 4}, {1, 2, 3}}; !slices.EqualFunc(g.moves, want, slices.Equal) {
		t.Errorf("moves %v, want %v: one onto the new broker, one back", g.moves, want)
	}
	d := f.(Detailer).Detail().(map[string]any)
	if !slices.Equal(d["nodes"].([]int32), []int32{4}) || d["verified"] == nil || d["healed"] == nil || d["remove-took"] == nil {
		t.Errorf("detail %v: want the new broker named, what was verified and healed, and how long its removal took", d)
	}
}

// A broker that did not join leaves nothing to undo; a removal that fails
// is an error a later Stop retries, after the replica is back.
func TestAddBrokerHealsWhatItDid(t *testing.T) {
	g := &growingBrokers{movingBrokers: &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{1, 2}}, failAdd: true}
	f := addBrokerOn(g)
	if err := f.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "not unfenced") {
		t.Fatalf("Start = %v, want the failed add named", err)
	}
	if err := f.Stop(t.Context()); err != nil || len(g.moves) > 0 || len(g.removed) > 0 {
		t.Errorf("Stop after a failed add = %v, moves %v, removed %v: want nothing to undo", err, g.moves, g.removed)
	}
	g = &growingBrokers{movingBrokers: &movingBrokers{fakeBrokers: newFakeBrokers(), replicas: []int32{1, 2}}, failRemoves: 1}
	f = addBrokerOn(g)
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := f.Stop(t.Context()); err == nil || !strings.Contains(err.Error(), "removing broker 4") {
		t.Fatalf("Stop = %v, want the failed removal named", err)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if want := [][]int32{{1, 4}, {1, 2}}; !slices.EqualFunc(g.moves, want, slices.Equal) || !slices.Equal(g.removed, []int32{4}) {
		t.Errorf("moves %v, removed %v: want one move each way and the broker removed at the retry", g.moves, g.removed)
	}
}
