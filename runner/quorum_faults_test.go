package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// A scenario with remove-voter, or cluster.dynamic-quorum, asks its
// cluster for a dynamic quorum; one without does not, and the two never
// share a reused cluster.
func TestDynamicQuorumReachesTheClusterSpec(t *testing.T) {
	s := smallScenario()
	s.Cluster.Provider = "local"
	removing := withFault(s, generators.KindRemoveVoter)
	asked := s
	asked.Cluster.DynamicQuorum = true
	if ClusterSpec(s, t.TempDir()).DynamicQuorum || !ClusterSpec(removing, t.TempDir()).DynamicQuorum || !ClusterSpec(asked, t.TempDir()).DynamicQuorum {
		t.Errorf("DynamicQuorum: want false without remove-voter or the field, true with either")
	}
	if reuseKey(s) == reuseKey(removing) {
		t.Errorf("reuse key %q for both: a static quorum would serve a remove-voter", reuseKey(s))
	}
}

// Asked for a dynamic quorum directly (a Spec, as chaostest passes one),
// the embedded and docker providers refuse it at Start, before they make
// anything, rather than run a static quorum under the name.
func TestDynamicQuorumRefusedByTheOtherProviders(t *testing.T) {
	for _, name := range []string{"embedded", "docker"} {
		prov, err := DefaultProviders().New(name)
		if err != nil {
			t.Fatal(err)
		}
		err = prov.Start(t.Context(), cluster.Spec{RunID: "dq", DynamicQuorum: true})
		if err == nil || !strings.Contains(err.Error(), "no dynamic controller quorum") {
			t.Errorf("%s: Start = %v, want the dynamic quorum refused", name, err)
		}
		if err := prov.Stop(t.Context()); err != nil {
			t.Errorf("%s: Stop after the refusal: %v", name, err)
		}
	}
}

// Below Kafka 3.9 the local provider refuses a dynamic quorum before it
// starts, naming the field that asked (the remove-voter fault, or
// cluster.dynamic-quorum) and both versions; 3.9 takes it.
func TestDynamicQuorumRefusedOnOldKafka(t *testing.T) {
	for _, version := range []string{"3.8.1", "3.9.1"} {
		t.Setenv("KAFKA_VERSION", version)
		prov, err := DefaultProviders().New("local")
		if err != nil {
			t.Fatal(err)
		}
		s := smallScenario()
		s.Cluster.Provider = "local"
		asked := s
		asked.Cluster.DynamicQuorum = true
		for field, sc := range map[string]generators.Scenario{"nemesis[0].kind": withFault(s, generators.KindRemoveVoter), "cluster.dynamic-quorum": asked} {
			err := Injectable(prov, sc)
			var old *OldKafka
			switch {
			case version == "3.9.1" && err != nil:
				t.Errorf("%s on %s: %v, want accepted", field, version, err)
			case version == "3.8.1" && (!errors.As(err, &old) || old.Need.Field != field ||
				!strings.Contains(err.Error(), field+` needs Kafka 3.9+, and cluster provider "local" runs Kafka 3.8.1`)):
				t.Errorf("%s on %s: %v, want refused naming the field and both versions", field, version, err)
			}
		}
	}
}
