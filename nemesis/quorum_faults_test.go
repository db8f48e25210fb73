package nemesis

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// votingBrokers is fakeBrokers whose three nodes are the voters of a
// quorum led by the controller; RemoveVoter and AddVoter change the set
// (a removal that fails still lands, as one whose answer was lost).
type votingBrokers struct {
	*fakeBrokers
	voters []int32
}

func (v *votingBrokers) Quorum(context.Context) (cluster.Quorum, error) {
	q := cluster.Quorum{Leader: v.controller, Epoch: 1, HighWatermark: 100}
	for _, id := range v.voters {
		q.Voters = append(q.Voters, cluster.QuorumReplica{ID: id, LogEndOffset: 100})
	}
	return q, nil
}

func (v *votingBrokers) RemoveVoter(_ context.Context, id int32) error {
	v.voters = slices.DeleteFunc(v.voters, func(x int32) bool { return x == id })
	return v.log("remove voter %d", id)
}

func (v *votingBrokers) AddVoter(_ context.Context, id int32) error {
	if err := v.log("add voter %d", id); err != nil {
		return err
	}
	if !slices.Contains(v.voters, id) {
		v.voters = append(v.voters, id)
	}
	return nil
}

func (v *votingBrokers) Verified(e cluster.Effect) string { return fmt.Sprintf("fake %s checked", e) }

func newVotingBrokers() *votingBrokers {
	return &votingBrokers{fakeBrokers: newFakeBrokers(), voters: []int32{1, 2, 3}}
}

func voterIDs(q any) []int32 {
	var ids []int32
	for _, r := range q.(cluster.Quorum).Voters {
		ids = append(ids, r.ID)
	}
	return ids
}

// remove-voter takes the active controller out of the voters and adds it
// back once however often Stop is called; the op's detail has the quorum
// before, after and healed, and names both checks.
func TestRemoveVoterRemovesTheControllerAndAddsItBack(t *testing.T) {
	v := newVotingBrokers()
	f := RemoveVoter(v, Targeting{Provider: v, Topic: "in", IntN: seq}, TargetController)
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := v.Calls(), []string{"remove voter 3", "add voter 3"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	d := f.(Detailer).Detail().(map[string]any)
	if got := [][]int32{voterIDs(d["before"]), voterIDs(d["after"]), voterIDs(d["healed"])}; !slices.EqualFunc(got,
		[][]int32{{1, 2, 3}, {1, 2}, {1, 2, 3}}, slices.Equal) {
		t.Errorf("voters before, after and healed %v", got)
	}
	if d["verified"] != "fake remove-voter checked" || d["heal-verified"] != "fake add-voter checked" || d["request"] != "RemoveRaftVoter" {
		t.Errorf("detail %v: want the removal's and the addition's checks named", d)
	}
	if start, stop := events(f); start != "remove-voter-start" || stop != "remove-voter-stop" {
		t.Errorf("events %s/%s, want remove-voter-start/remove-voter-stop (the report's timeline pairs them)", start, stop)
	}
}

// A removal that failed may still have landed: Stop adds the voter back,
// and a failed addition is an error Stop retries.
func TestRemoveVoterHealsAFailedRemovalAndRetriesItsHeal(t *testing.T) {
	v := newVotingBrokers()
	v.failOn = "remove voter 1"
	f := RemoveVoter(v, Targeting{Provider: v, IntN: func(int) int { return 0 }}, TargetOne)
	if err := f.Start(t.Context()); err == nil {
		t.Fatal("Start succeeded with the removal failing")
	}
	v.failOn = "add voter 1"
	if err := f.Stop(t.Context()); err == nil {
		t.Fatal("Stop succeeded with the addition failing")
	}
	v.failOn = ""
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"remove voter 1", "add voter 1", "add voter 1"}; !slices.Equal(v.Calls(), want) {
		t.Errorf("calls %v, want %v", v.Calls(), want)
	}
	if q, _ := v.Quorum(t.Context()); !slices.Equal(voterIDs(q), []int32{2, 3, 1}) {
		t.Errorf("voters %v after the heal, want 1 back", voterIDs(q))
	}
}
