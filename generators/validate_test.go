package generators

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// A fault's nodes are checked against the ids each provider gives its
// brokers: 0..n-1 on the embedded cluster, 1..n on real KRaft clusters;
// where the provider chooses (external), any id that is not negative.
func TestValidateNodesPerProvider(t *testing.T) {
	cases := []struct {
		provider string
		node     int32
		want     string // "" when valid
	}{
		{"embedded", 0, ""},
		{"embedded", 2, ""},
		{"embedded", 3, "node 3 is not one of the 3 brokers (embedded numbers them 0..2)"},
		{"local", 0, "node 0 is not one of the 3 brokers (local numbers them 1..3)"},
		{"local", 1, ""},
		{"local", 3, ""},
		{"docker", 0, "node 0 is not one of the 3 brokers (docker numbers them 1..3)"},
		{"docker", 3, ""},
		{"docker", 4, "node 4 is not one of the 3 brokers (docker numbers them 1..3)"},
		{"external", 1001, ""},
		{"external", -1, "node -1: broker ids are not negative"},
	}
	for _, c := range cases {
		s := sample()
		s.Cluster.Provider = c.provider
		s.Nemesis = []Fault{{Kind: KindKill, Start: Duration(time.Second), Duration: Duration(time.Second),
			Params: FaultParams{Nodes: []int32{1, c.node}}}}
		err := s.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s node %d: %v, want valid", c.provider, c.node, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), "nemesis[0].params.nodes[1]: "+c.want)):
			t.Errorf("%s node %d: %v, want %q", c.provider, c.node, err, c.want)
		}
	}
}

// A consumer crash point the scenario's commit strategy never reaches is
// refused, naming the field; random draws never ask for one.
func TestValidateCrashPointReachable(t *testing.T) {
	cases := []struct {
		mode, commit, point string
		ok                  bool
	}{
		{ModeGroup, "before-processing", CrashAfterCommit, true},
		{ModeGroup, "before-processing", CrashBeforeCommit, false},
		{ModeGroup, "after-processing", CrashBeforeCommit, true},
		{ModeGroup, "after-processing", CrashAfterCommit, false},
		{ModeGroup, "auto", CrashAfterCommit, true},
		{ModeGroup, "auto", CrashBeforeCommit, false},
		{ModeGroup, "auto", CrashAnywhere, true},
		{ModeAssign, "after-processing", CrashBeforeCommit, false},
	}
	for _, c := range cases {
		s := sample()
		s.Workload.Mode, s.Workload.Consumers = c.mode, 1
		s.Consumer.CommitStrategy = model.CommitStrategy(c.commit)
		s.Nemesis = []Fault{{Kind: KindCrashConsumer, Start: Duration(time.Second), Params: FaultParams{Point: c.point, Every: Duration(time.Second)}}}
		err := s.Validate()
		if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "nemesis[0].params.point: ")) {
			t.Errorf("%s %s %s: %v, want valid %v", c.mode, c.commit, c.point, err, c.ok)
		}
	}
	for seed := int64(0); seed < 300; seed++ {
		s := Random(seed)
		for i, f := range s.Nemesis {
			if f.Kind == KindCrashConsumer && !slices.Contains(CrashPoints(s), f.Params.Point) {
				t.Fatalf("seed %d: nemesis[%d] asks for point %q, unreachable with %s/%s", seed, i, f.Params.Point, s.Workload.Mode, s.Consumer.CommitStrategy)
			}
		}
	}
}
