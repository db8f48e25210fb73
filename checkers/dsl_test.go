package checkers

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// hist builds a history tersely: each op call appends a completion (and
// returns its index); invokes are left out unless a test needs them, since
// the checker judges completions.
type hist struct {
	ops []histories.Op
}

const (
	ok   = histories.OK
	info = histories.Info
	fail = histories.Fail
)

func (h *hist) op(p int64, t histories.Type, f string, mops ...histories.Mop) int64 {
	i := int64(len(h.ops))
	h.ops = append(h.ops, histories.Op{Index: i, Time: i * 1000, Process: p, Type: t, F: f, Mops: mops})
	return i
}

// last returns the op appended last, to set Group, Rebalance, Keys or Extra.
func (h *hist) last() *histories.Op { return &h.ops[len(h.ops)-1] }

func (h *hist) keys(p int64, t histories.Type, f string, ks ...int64) int64 {
	i := h.op(p, t, f)
	h.last().Keys = ks
	return i
}

// snd is a send of v to k that landed at offset o (NoOffset when unknown).
func snd(k, v, o int64) histories.Mop {
	return histories.Mop{F: histories.MSend, Key: k, Value: v, Offset: o}
}

// pl is a poll of key k returning offset/value pairs: pl(1, 0,10, 1,11).
func pl(k int64, ov ...int64) histories.Mop {
	recs := make([]histories.Record, 0, len(ov)/2)
	for i := 0; i+1 < len(ov); i += 2 {
		recs = append(recs, histories.Record{Offset: ov[i], Value: ov[i+1]})
	}
	return histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{k: recs}}
}

// polls merges single-key polls into one poll micro-op.
func polls(ms ...histories.Mop) histories.Mop {
	out := histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{}}
	for _, m := range ms {
		for k, r := range m.Records {
			out.Records[k] = append(out.Records[k], r...)
		}
	}
	return out
}

func cm(k, o int64) histories.Mop {
	return histories.Mop{F: histories.MCommit, Offsets: map[int64]int64{k: o}}
}

func check(t *testing.T, h *hist, opts Options) Result {
	t.Helper()
	res, err := Check(Ops(h.ops), opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return res
}

// expectOnly fails unless res found exactly the anomalies want.
func expectOnly(t *testing.T, res Result, want ...Anomaly) {
	t.Helper()
	slices.Sort(want)
	if !slices.Equal(res.AnomalyTypes, want) {
		t.Fatalf("anomaly types = %v, want %v\ncases: %+v", res.AnomalyTypes, want, res.Anomalies)
	}
	if res.Valid != (len(want) == 0) {
		t.Fatalf("valid = %v with anomalies %v", res.Valid, want)
	}
	for _, a := range want {
		if int64(len(res.Anomalies[a])) != res.Counts[a] || res.Counts[a] == 0 {
			t.Fatalf("%s: %d cases, count %d", a, len(res.Anomalies[a]), res.Counts[a])
		}
	}
}

// only returns the single case of anomaly a, failing if there is not one.
func only(t *testing.T, res Result, a Anomaly) Case {
	t.Helper()
	if len(res.Anomalies[a]) != 1 {
		t.Fatalf("%s: %d cases, want 1: %+v", a, len(res.Anomalies[a]), res.Anomalies[a])
	}
	return res.Anomalies[a][0]
}

func expectOps(t *testing.T, c Case, want ...int64) {
	t.Helper()
	if !slices.Equal(c.Ops, want) {
		t.Fatalf("case ops = %v, want %v (%s)", c.Ops, want, c.Explanation)
	}
}

// pair is a history that must show anomalies and a near-identical one that
// must not.
type pair struct {
	name string
	opts Options
	bad  func(h *hist)
	good func(h *hist)
	want []Anomaly
	ops  []int64 // if set, the ops of the single case of want[0]
}

func runPairs(t *testing.T, pairs []pair) {
	t.Helper()
	for _, p := range pairs {
		t.Run(p.name+"/triggers", func(t *testing.T) {
			h := &hist{}
			p.bad(h)
			res := check(t, h, p.opts)
			expectOnly(t, res, p.want...)
			if p.ops != nil {
				expectOps(t, only(t, res, p.want[0]), p.ops...)
			}
		})
		t.Run(p.name+"/clean", func(t *testing.T) {
			h := &hist{}
			p.good(h)
			expectOnly(t, check(t, h, p.opts))
		})
	}
}
