package checkers

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/sim"
)

// scribblingSource hands out one Op, whose slices and maps it overwrites for
// the next op, as histories.Reader does; failAt > 0 makes Scan fail there.
type scribblingSource struct {
	ops    Ops
	failAt int
}

var errSource = errors.New("source failed")

func (s scribblingSource) Scan(f func(*histories.Op) error) error {
	var op histories.Op
	var pool []map[int64][]histories.Record // one map per mop position, reused
	slab := make([]histories.Record, 0, 64)
	for i := range s.ops {
		if s.failAt > 0 && i == s.failAt {
			return errSource
		}
		src := &s.ops[i]
		op = *src
		op.Mops = op.Mops[:0:0]
		slab = slab[:0]
		for j, m := range src.Mops {
			if m.Records != nil {
				for len(pool) <= j {
					pool = append(pool, map[int64][]histories.Record{})
				}
				recs := pool[j]
				clear(recs)
				for k, rs := range m.Records {
					start := len(slab)
					slab = append(slab, rs...)
					recs[k] = slab[start:]
				}
				m.Records = recs
			}
			op.Mops = append(op.Mops, m)
		}
		if err := f(&op); err != nil {
			return err
		}
		for j := range slab {
			slab[j] = histories.Record{Offset: -9, Value: -9} // what a reused buffer would hold next
		}
	}
	return nil
}

func simOps(t *testing.T, n int) Ops {
	t.Helper()
	var ops Ops
	err := sim.GenerateTo(3, n, sim.DefaultConfig(), func(op *histories.Op) error {
		ops = append(ops, *op.Clone())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestScanAheadCopiesEveryOp: what f sees equals the source, op for op,
// although the source reuses its memory and many batches circulate.
func TestScanAheadCopiesEveryOp(t *testing.T) {
	ops := simOps(t, 5*batchOps*batches+17)
	ops[3].Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[1]}]`)}
	ops[4].Rebalance = &histories.Rebalance{Revoked: []int64{1}, Assigned: []int64{2}}
	ops[5].Value = json.RawMessage(`{"nodes":[2]}`)
	var got []histories.Op
	err := scanAhead(scribblingSource{ops: ops}, func(op *histories.Op) error {
		got = append(got, *op.Clone())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ops) {
		t.Fatalf("%d ops seen, want %d", len(got), len(ops))
	}
	for i := range ops {
		if !reflect.DeepEqual(normal(got[i]), normal(ops[i])) {
			t.Fatalf("op %d:\n got %+v\nwant %+v", i, got[i], ops[i])
		}
	}
}

// normal drops the difference between nil and empty slices, which copying
// does not keep.
func normal(op histories.Op) histories.Op {
	if len(op.Mops) == 0 {
		op.Mops = nil
	}
	for i := range op.Mops {
		for k, rs := range op.Mops[i].Records {
			if len(rs) == 0 {
				op.Mops[i].Records[k] = nil
			}
		}
	}
	return op
}

func TestScanAheadErrors(t *testing.T) {
	ops := simOps(t, 3*batchOps*batches)
	t.Run("source", func(t *testing.T) {
		n := 0
		err := scanAhead(scribblingSource{ops: ops, failAt: 2*batchOps + 5}, func(*histories.Op) error { n++; return nil })
		if !errors.Is(err, errSource) || n != 2*batchOps+5 {
			t.Fatalf("err %v after %d ops", err, n)
		}
	})
	t.Run("consumer", func(t *testing.T) {
		errF := errors.New("f failed")
		n := 0
		err := scanAhead(scribblingSource{ops: ops}, func(*histories.Op) error {
			n++
			if n == batchOps+3 {
				return errF
			}
			return nil
		})
		if !errors.Is(err, errF) || n != batchOps+3 {
			t.Fatalf("err %v after %d ops", err, n)
		}
	})
}

// TestReplayRoundTrip: the replay gives back every client completion pass 2
// judges, field for field, and nothing else.
func TestReplayRoundTrip(t *testing.T) {
	ops := simOps(t, 20_000)
	ops[3].Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[1]}]`), "other": json.RawMessage(`1`)}
	ops[4].Rebalance = &histories.Rebalance{Revoked: []int64{1}, Assigned: []int64{2, -3}}
	ops[4].Group = "g2"
	r := newReplay()
	var want []histories.Op
	for i := range ops {
		op := &ops[i]
		if op.Type != histories.Invoke && op.IsClient() && isClientF(op.F) {
			r.add(op)
			c := *op.Clone()
			c.Value, c.Error, c.Time = nil, "", 0
			if log, ok := c.Extra[rebalanceLogKey]; ok {
				c.Extra = map[string]json.RawMessage{rebalanceLogKey: log}
			} else {
				c.Extra = nil
			}
			want = append(want, c)
		}
	}
	for range 2 { // a replay can be scanned again
		i := 0
		err := r.Scan(func(op *histories.Op) error {
			if i >= len(want) || !reflect.DeepEqual(replayNormal(*op), replayNormal(want[i])) {
				t.Fatalf("op %d:\n got %+v\nwant %+v", i, op, want[i])
			}
			i++
			return nil
		})
		if err != nil || i != len(want) {
			t.Fatalf("err %v after %d of %d ops", err, i, len(want))
		}
	}
}

// replayNormal also drops the difference between a poll mop without records
// and one with none, empty and nil rebalance lists, and the offset field of
// mops other than sends.
func replayNormal(op histories.Op) histories.Op {
	op = normal(*op.Clone())
	if rb := op.Rebalance; rb != nil {
		if len(rb.Revoked) == 0 {
			rb.Revoked = nil
		}
		if len(rb.Assigned) == 0 {
			rb.Assigned = nil
		}
	}
	for i := range op.Mops {
		if op.Mops[i].F != histories.MSend {
			op.Mops[i].Offset = 0 // only a send's offset is kept
		}
		if op.Mops[i].F == histories.MPoll && len(op.Mops[i].Records) == 0 {
			op.Mops[i].Records = nil
		}
		if op.Mops[i].F == histories.MCommit && len(op.Mops[i].Offsets) == 0 {
			op.Mops[i].Offsets = nil
		}
	}
	return op
}
