package groundtruth

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
)

// TestReadUncommitted: the appended readers keep the history well formed,
// return each key's records in offset order without gaps in what the log
// holds, and count exactly the aborted records they return.
func TestReadUncommitted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := Gen(SmallConfig(), 30, 60).Draw(t, "history")
		out, aborted, err := ReadUncommitted(ops)
		if err != nil {
			t.Fatal(err)
		}
		if err := wellFormed(out); err != nil {
			t.Fatal(err)
		}
		failed := map[[2]int64]bool{}
		for _, op := range ops {
			if op.Type == histories.Fail && op.F == histories.FTxn {
				for _, m := range op.Mops {
					if m.F == histories.MSend && m.Offset >= 0 {
						failed[[2]int64{m.Key, m.Offset}] = true
					}
				}
			}
		}
		seen := 0
		for _, op := range out[len(ops):] {
			for _, m := range op.Mops {
				for k, rs := range m.Records {
					if !slices.IsSortedFunc(rs, func(a, b histories.Record) int { return int(a.Offset - b.Offset) }) {
						t.Fatalf("key %d: records out of order: %v", k, rs)
					}
					for _, r := range rs {
						if failed[[2]int64{k, r.Offset}] {
							seen++
						}
					}
				}
			}
		}
		if seen != aborted {
			t.Fatalf("%d aborted records returned, %d reported", seen, aborted)
		}
	})
}
