package cluster

import (
	"context"
	"slices"
)

// CapQuorum: VoterChanger (a controller taken out of the KRaft voter set
// and put back while its node runs). Only a local cluster formatted with a
// dynamic quorum (Spec.DynamicQuorum, Kafka 3.9+) has it: a static quorum
// (controller.quorum.voters) cannot change, the embedded cluster (kfake)
// has no quorum, and the docker provider formats static ones.
const CapQuorum Capability = "quorum"

// EffectRemoveVoter names VoterChanger.RemoveVoter, EffectAddVoter
// VoterChanger.AddVoter, for EffectVerifier.
const (
	EffectRemoveVoter Effect = "remove-voter"
	EffectAddVoter    Effect = "add-voter"
)

// QuorumReplica is a replica of the metadata log: a voter or an observer.
type QuorumReplica struct {
	ID           int32  `json:"id"`
	DirectoryID  string `json:"directory-id,omitempty"`
	LogEndOffset int64  `json:"log-end-offset"` // -1 when the leader does not know it
}

// Quorum is the KRaft metadata quorum as its leader describes it
// (DescribeQuorum).
type Quorum struct {
	Leader        int32           `json:"leader"`
	Epoch         int32           `json:"epoch"`
	HighWatermark int64           `json:"high-watermark"`
	Voters        []QuorumReplica `json:"voters"`
	Observers     []QuorumReplica `json:"observers"`
}

// VoterIDs lists the voters' ids, sorted.
func (q Quorum) VoterIDs() []int32 { return replicaIDs(q.Voters) }

// ObserverIDs lists the observers' ids, sorted.
func (q Quorum) ObserverIDs() []int32 { return replicaIDs(q.Observers) }

func replicaIDs(rs []QuorumReplica) []int32 {
	ids := make([]int32, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids
}

// Voter is id's entry among the voters, if it is one.
func (q Quorum) Voter(id int32) (QuorumReplica, bool) {
	i := slices.IndexFunc(q.Voters, func(r QuorumReplica) bool { return r.ID == id })
	if i < 0 {
		return QuorumReplica{}, false
	}
	return q.Voters[i], true
}

// Lag is how far voter id's log end trails the leader's, or -1 when either
// is unknown.
func (q Quorum) Lag(id int32) int64 {
	v, ok := q.Voter(id)
	l, lok := q.Voter(q.Leader)
	if !ok || !lok || v.LogEndOffset < 0 || l.LogEndOffset < 0 {
		return -1
	}
	return l.LogEndOffset - v.LogEndOffset
}

// VoterChanger changes the controller quorum's voter set (KIP-853's
// RemoveRaftVoter and AddRaftVoter) while every node keeps running.
type VoterChanger interface {
	// Quorum describes the metadata quorum now.
	Quorum(ctx context.Context) (Quorum, error)
	// RemoveVoter takes node id's controller out of the voter set and
	// returns nil only once the quorum lists the voters without it (its
	// node stays up, a broker and an observer). Its waits have their own
	// bounds.
	RemoveVoter(ctx context.Context, id int32) error
	// AddVoter puts node id's controller back (its id, directory id and
	// controller listener, as the cluster was formatted) and returns nil
	// only once the quorum lists it a voter caught up with the leader.
	// Adding a voter that is one already is not an error.
	AddVoter(ctx context.Context, id int32) error
}
