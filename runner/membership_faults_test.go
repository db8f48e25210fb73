package runner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// The embedded cluster (kfake) accepts a reassignment and moves nothing:
// a reassign fault there is refused before the cluster starts, naming the
// capability; the real providers have it.
func TestReassignRefusedOnTheEmbeddedCluster(t *testing.T) {
	s := smallScenario()
	s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = 1, 1
	s = withFault(s, generators.KindReassign)
	root := t.TempDir()
	_, err := Run(context.Background(), s, Options{RunsDir: root})
	var u *UnsupportedFault
	if !errors.As(err, &u) || u.Provider != "embedded" || u.Capability != cluster.CapReassign ||
		!strings.Contains(err.Error(), `reassign needs capability "reassign"`) {
		t.Errorf("err = %v, want reassign refused on embedded for want of the reassign capability", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("refused run left %d entries under the runs root", len(ents))
	}
	for _, name := range []string{"local", "docker"} {
		prov, err := DefaultProviders().New(name)
		if err != nil {
			t.Fatal(err)
		}
		s.Cluster.Provider = name
		if err := Injectable(prov, s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, ok := prov.(cluster.Reassigner); !ok {
			t.Errorf("%s lists %s and is no cluster.Reassigner", name, cluster.CapReassign)
		}
	}
}

// remove-broker, add-broker and remove-voter are the local provider's: the
// embedded cluster refuses them before it starts, naming the capability,
// and so does docker, whose unregistration has not been run on real
// containers yet, which has no way to add a container to a running
// cluster, and whose containers are formatted with a static quorum.
func TestMembershipKindsOnlyOnTheLocalProvider(t *testing.T) {
	kinds := []struct {
		kind string
		cap  cluster.Capability
		hook func(cluster.Provider) bool
	}{
		{generators.KindRemoveBroker, cluster.CapUnregister, func(p cluster.Provider) bool { _, ok := p.(cluster.BrokerRemover); return ok }},
		{generators.KindAddBroker, cluster.CapAddBroker, func(p cluster.Provider) bool { _, ok := p.(cluster.BrokerAdder); return ok }},
		{generators.KindRemoveVoter, cluster.CapQuorum, func(p cluster.Provider) bool { _, ok := p.(cluster.VoterChanger); return ok }},
	}
	for _, k := range kinds {
		for name, want := range map[string]bool{"embedded": false, "docker": false, "local": true} {
			prov, err := DefaultProviders().New(name)
			if err != nil {
				t.Fatal(err)
			}
			s := smallScenario()
			s.Cluster.Provider = name
			s = withFault(s, k.kind)
			err = Injectable(prov, s)
			var u *UnsupportedFault
			if want != (err == nil) || (!want && (!errors.As(err, &u) || u.Capability != k.cap)) {
				t.Errorf("%s on %s: Injectable = %v, want supported %v", k.kind, name, err, want)
			}
			if want && !k.hook(prov) {
				t.Errorf("%s lists %s and lacks its hook", name, k.cap)
			}
		}
	}
}
