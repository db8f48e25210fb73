package cluster

import (
	"slices"
	"testing"
)

// A voter's lag is the leader's log end minus its own, unknown (-1) when
// either is unknown or it is no voter.
func TestQuorumLag(t *testing.T) {
	q := Quorum{Leader: 1, Voters: []QuorumReplica{{ID: 3, LogEndOffset: -1}, {ID: 1, LogEndOffset: 120}, {ID: 2, LogEndOffset: 118}},
		Observers: []QuorumReplica{{ID: 4, LogEndOffset: 50}}}
	for id, want := range map[int32]int64{1: 0, 2: 2, 3: -1, 4: -1} {
		if got := q.Lag(id); got != want {
			t.Errorf("Lag(%d) = %d, want %d", id, got, want)
		}
	}
	if got := q.VoterIDs(); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("VoterIDs = %v, want [1 2 3]", got)
	}
	if got := q.ObserverIDs(); !slices.Equal(got, []int32{4}) {
		t.Errorf("ObserverIDs = %v, want [4]", got)
	}
	if _, ok := q.Voter(4); ok {
		t.Error("Voter(4) found an observer among the voters")
	}
}
