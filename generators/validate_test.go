package generators

import (
	"strings"
	"testing"
	"time"
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
