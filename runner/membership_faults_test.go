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
