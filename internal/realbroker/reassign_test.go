package realbroker

import (
	"strings"
	"testing"
)

// A move is complete only when the replicas are exactly the target, in
// its order, and each is in sync.
func TestReplicasAre(t *testing.T) {
	for _, tc := range []struct {
		replicas, isr, target []int32
		want                  string // "" or a part of the reason
	}{
		{[]int32{1, 3}, []int32{3, 1}, []int32{1, 3}, ""},
		{[]int32{1, 2, 3}, []int32{1, 2, 3}, []int32{1, 3}, "not [1 3]"},
		{[]int32{3, 1}, []int32{1, 3}, []int32{1, 3}, "not [1 3]"},
		{[]int32{1, 3}, []int32{1}, []int32{1, 3}, "replica 3 is not in sync"},
	} {
		got := replicasAre(tc.replicas, tc.isr, tc.target)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("replicasAre(%v, isr %v, target %v) = %q, want %q", tc.replicas, tc.isr, tc.target, got, tc.want)
		}
	}
}
