package generators

import (
	"fmt"
	"reflect"
	"slices"
	"time"
)

// KindRemoveVoter takes one controller out of the KRaft voter set for the
// window (RemoveRaftVoter) while its node keeps running, a broker and an
// observer of the metadata log, and puts it back at the window's end
// (AddRaftVoter), caught up. Params.Target picks it: one (by default) or
// the controller, the active one, which resigns once the smaller set is
// committed. It needs a dynamic quorum (Kafka 3.9+), which the scenario
// then has (DynamicQuorum); the local provider alone formats one.
//
// Of three voters two are left: a majority of two is both, so for the
// window the quorum survives no further loss — a broker killed then stops
// the controllers (no metadata changes, no ISR shrink) until it is back.
const KindRemoveVoter = "remove-voter"

// removeVoterTargets are the targets remove-voter takes.
var removeVoterTargets = []string{"", "one", "controller"}

// removeVoterNeed is remove-voter's availability rule: Kafka refuses to
// remove the last voter, so a voter must be left; and the removal lands
// (committed, DescribeQuorum listing the node an observer) before the run
// ends.
func removeVoterNeed() need { return need{brokers: 2, effect: voterChange} }

// voterChange is how long a voter's removal or return takes to land, with
// margin: 1.0-2.1 s on cluster/local (Kafka 3.9.1, 4.4.0).
const voterChange = 5 * time.Second

// DynamicQuorum reports whether s's cluster is formatted with a dynamic
// controller quorum: asked for (cluster.dynamic-quorum), or needed by a
// remove-voter fault.
func (s Scenario) DynamicQuorum() bool {
	return s.Cluster.DynamicQuorum || slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return f.Kind == KindRemoveVoter })
}

// validateQuorum refuses a dynamic quorum on a provider that cannot
// format one. The Kafka version is the provider's to check when it starts
// (3.9+): the scenario does not name it.
func (s *Scenario) validateQuorum() error {
	if !s.DynamicQuorum() || s.Cluster.Provider == "local" {
		return nil
	}
	why := "cluster.dynamic-quorum is set"
	if !s.Cluster.DynamicQuorum {
		why = "a remove-voter fault needs one"
	}
	return bad("cluster.dynamic-quorum", "%s, and only the local provider formats a dynamic controller quorum (KIP-853, Kafka 3.9+), not %s",
		why, s.Cluster.Provider)
}

// quorumNeeds is what a dynamic quorum needs of the Kafka release
// (KafkaNeeds): KIP-853's dynamic voters, 3.9+. The field named is the one
// that asked for it.
func quorumNeeds(s Scenario) []KafkaNeed {
	if !s.DynamicQuorum() {
		return nil
	}
	field := "cluster.dynamic-quorum"
	if i := slices.IndexFunc(s.Nemesis, func(f Fault) bool { return f.Kind == KindRemoveVoter }); i >= 0 && !s.Cluster.DynamicQuorum {
		field = fmt.Sprintf("nemesis[%d].kind", i)
	}
	return []KafkaNeed{{field, "3.9", "a dynamic controller quorum (KIP-853 voters added and removed, kraft.version 1) is formatted by Kafka 3.9+ only"}}
}

// validateRemoveVoter checks that remove-voter is given only the parameter
// it reads, its target.
func (f Fault) validateRemoveVoter(field string) error {
	if f.Kind != KindRemoveVoter {
		return nil
	}
	rest := f.Params
	rest.Target = ""
	if !slices.Contains(removeVoterTargets, f.Params.Target) || !reflect.ValueOf(rest).IsZero() {
		return bad(field+".params", "remove-voter reads target alone, one or controller (one by default): it takes one controller out of the voter set (target %q, other params %+v)",
			f.Params.Target, rest)
	}
	return nil
}
