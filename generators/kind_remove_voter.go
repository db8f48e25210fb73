package generators

import (
	"fmt"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Takes one controller (Params.Target one or controller) out of the
//   KRaft voter set for the window and back at its end; needs a voter
//   left (two brokers), a dynamic quorum (local provider, Kafka 3.9+),
//   and its removal landed (voterChange) before the run ends.
// * Footprint: a voter out. It must not overlap another voter change or a
//   membership change (each waits on the quorum the other took); a draw
//   keeps brokers down or cut apart from it too.
// * Heal budget: the voter's return, caught up.
// * Drawn with a target of one or the controller.

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

func removeVoterKind() Kind {
	return Kind{Name: KindRemoveVoter, Capability: cluster.CapQuorum, Drawn: true, heal: voterChange,
		targets: []string{"one", "controller"},
		Doc: "Takes one controller out of the KRaft voter set for the window (RemoveRaftVoter) while its node keeps running, " +
			"a broker and an observer of the metadata log, and puts it back at the window's end (AddRaftVoter), caught up. " +
			"Params.Target picks it: one (by default) or the controller, the active one. It needs a dynamic quorum " +
			"(Kafka 3.9+, the local provider), which the scenario then has. Of three voters two are left, both the " +
			"majority: for the window the quorum survives no further loss.",
		// Kafka refuses to remove the last voter, so a voter must be
		// left; and the removal lands (committed, DescribeQuorum listing
		// the node an observer) before the run ends
		need:      staticNeed(need{brokers: 2, effect: voterChange}),
		check:     checkRemoveVoter,
		footprint: func(Fault, Scenario) Footprint { return Footprint{Voters: 1} },
		draw:      pickTarget("one", "controller"),
	}
}

// voterChange is how long a voter's removal or return takes to land, with
// margin: 1.0-2.1 s on cluster/local (Kafka 3.9.1, 4.4.0).
const voterChange = 5 * time.Second

// DynamicQuorum reports whether s's cluster is formatted with a dynamic
// controller quorum: asked for (cluster.dynamic-quorum), or needed by a
// remove-voter fault.
func (s Scenario) DynamicQuorum() bool {
	return s.Cluster.DynamicQuorum || slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Voters > 0 })
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
	if i := slices.IndexFunc(s.Nemesis, func(f Fault) bool { return footprintOf(f, s).Voters > 0 }); i >= 0 && !s.Cluster.DynamicQuorum {
		field = fmt.Sprintf("nemesis[%d].kind", i)
	}
	return []KafkaNeed{{field, "3.9", "a dynamic controller quorum (KIP-853 voters added and removed, kraft.version 1) is formatted by Kafka 3.9+ only"}}
}

// checkRemoveVoter checks that remove-voter is given only the parameter
// it reads, its target.
func checkRemoveVoter(f Fault, field string, _ *Scenario) error {
	rest := f.Params
	rest.Target = ""
	if (f.Params.Target != "" && f.Params.Target != "one" && f.Params.Target != "controller") || !isZero(rest) {
		return bad(field+".params", "remove-voter reads target alone, one or controller (one by default): it takes one controller out of the voter set (target %q, other params %+v)",
			f.Params.Target, rest)
	}
	return nil
}
