package clienttest

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Copied is the input values the ok txn and poll ops of a group (a
// copier's steps) read in ops, with how often each was read.
func Copied(ops []histories.Op) map[int64]int {
	return readBy(ops, func(o histories.Op) bool {
		return o.Group != "" && (o.F == histories.FTxn || o.F == histories.FPoll)
	})
}

// CheckCopiedOnce fails t unless each output key of pairs holds in out
// the copy of each record of its input key exactly once, and nothing else
// (no poisoned value). The input keys are 0..len(pairs)-1, and input key i
// holds the values v below n with v%len(pairs) == i, v at offset
// v/len(pairs).
func CheckCopiedOnce(t testing.TB, out map[histories.Key][]int64, pairs map[histories.Key]histories.Key, n int64) {
	t.Helper()
	m := int64(len(pairs))
	for in, o := range pairs {
		var want []int64
		for v := int64(in); v < n; v += m {
			c, err := histories.CopyValue(v, v/m)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, c)
		}
		if got := slices.Sorted(slices.Values(out[o])); !slices.Equal(got, want) {
			t.Errorf("output key %d holds %v, want each of %v once", o, got, want)
		}
	}
}
