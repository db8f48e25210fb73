package groundtruth

import (
	"errors"

	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrNotApplicable means a history lacks what an injector needs (e.g. no
// aborted transaction to expose); draw another history.
var ErrNotApplicable = errors.New("groundtruth: history has nothing to inject this anomaly into")

// kv names a value of a key.
type kv struct{ k, v int64 }

// ref locates a read: op i, mop m, record r of key k.
type ref struct{ op, mop, rec int }

// facts is what injectors need to know about a simulated history.
type facts struct {
	finalProc int64
	keys      []histories.Key // the keys the final reader assigned
	maxProc   int64
	maxValue  int64
	maxOff    map[int64]int64 // highest offset mentioned anywhere, per key
	// lastRec is, per key, the last record the final reads returned.
	lastRec map[int64]histories.Record
	// writer is the completion op of each value's send, by index.
	writer map[kv]int
	// groupRead marks values some group member's ok op returned.
	groupRead map[kv]bool
	// okReads counts the reads of each value by ok ops.
	okReads map[kv]int
}

func learn(ops []histories.Op) (*facts, error) {
	if len(ops) == 0 {
		return nil, ErrNotApplicable
	}
	f := &facts{finalProc: ops[len(ops)-1].Process, maxOff: map[int64]int64{},
		lastRec: map[int64]histories.Record{}, writer: map[kv]int{}, groupRead: map[kv]bool{}, okReads: map[kv]int{}}
	for i := range ops {
		op := &ops[i]
		f.maxProc = max(f.maxProc, op.Process)
		if op.Process == f.finalProc && op.F == histories.FAssign {
			f.keys = op.Keys
		}
		for _, m := range op.Mops {
			f.learnMop(i, op, m)
		}
	}
	return f, nil
}

func (f *facts) learnMop(i int, op *histories.Op, m histories.Mop) {
	if m.F == histories.MSend {
		f.maxValue = max(f.maxValue, m.Value)
		f.maxOff[m.Key] = max(f.maxOff[m.Key], m.Offset)
		if op.Type != histories.Invoke {
			f.writer[kv{m.Key, m.Value}] = i
		}
	}
	for k, rs := range m.Records {
		for _, r := range rs {
			f.maxValue = max(f.maxValue, r.Value)
			f.maxOff[k] = max(f.maxOff[k], r.Offset)
			if op.Type == histories.OK {
				f.okReads[kv{k, r.Value}]++
			}
			if op.Type == histories.OK && op.Group != "" {
				f.groupRead[kv{k, r.Value}] = true
			}
			if op.Type == histories.OK && op.Process == f.finalProc {
				f.lastRec[k] = r
			}
		}
	}
}

// pick chooses one of n candidates, or reports that there are none.
func pick(ch Chooser, n int) (int, error) {
	if n == 0 {
		return 0, ErrNotApplicable
	}
	return ch.Intn(n), nil
}

// appender adds ops by fresh processes after the end of a history.
type appender struct {
	ops  []histories.Op
	next int64 // next fresh process id
}

func (a *appender) fresh() int64 {
	a.next++
	return a.next
}

// pair appends the invocation and ok completion of one op.
func (a *appender) pair(inv, ok histories.Op) {
	inv.Type, ok.Type = histories.Invoke, histories.OK
	a.add(inv)
	a.add(ok)
}

func (a *appender) add(op histories.Op) {
	var t int64
	if n := len(a.ops); n > 0 {
		t = a.ops[n-1].Time
	}
	op.Index, op.Time = int64(len(a.ops)), t+1
	a.ops = append(a.ops, op)
}

// read appends a fresh consumer (in group when not "") that assigns or
// subscribes to k and polls recs from it.
func (a *appender) read(group string, k int64, recs ...histories.Record) {
	p := a.fresh()
	f := histories.FAssign
	if group != "" {
		f = histories.FSubscribe
	}
	a.pair(histories.Op{Process: p, F: f, Keys: []histories.Key{k}, Group: group},
		histories.Op{Process: p, F: f, Keys: []histories.Key{k}, Group: group})
	a.pair(histories.Op{Process: p, F: histories.FPoll, Group: group, Mops: []histories.Mop{{F: histories.MPoll}}},
		histories.Op{Process: p, F: histories.FPoll, Group: group,
			Mops: []histories.Mop{{F: histories.MPoll, Records: map[histories.Key][]histories.Record{k: recs}}}})
}

// send appends a fresh producer's ok op with the given send mops (and any
// other mops, e.g. polls, completed as given).
func (a *appender) send(f string, mops ...histories.Mop) int64 {
	p := a.fresh()
	inv := make([]histories.Mop, len(mops))
	for i, m := range mops {
		inv[i] = histories.Mop{F: m.F, Key: m.Key, Value: m.Value, Offset: histories.NoOffset}
	}
	a.pair(histories.Op{Process: p, F: f, Mops: inv}, histories.Op{Process: p, F: f, Mops: mops})
	return p
}

// deepCopy copies ops so that injecting never changes the caller's history.
func deepCopy(ops []histories.Op) []histories.Op {
	out := make([]histories.Op, len(ops))
	for i, op := range ops {
		op.Mops = cloneMops(op.Mops)
		for j, m := range op.Mops {
			if m.Records != nil {
				recs := make(map[histories.Key][]histories.Record, len(m.Records))
				for k, rs := range m.Records {
					recs[k] = append([]histories.Record(nil), rs...)
				}
				op.Mops[j].Records = recs
			}
			if m.Offsets != nil {
				offs := make(map[histories.Key]int64, len(m.Offsets))
				for k, o := range m.Offsets {
					offs[k] = o
				}
				op.Mops[j].Offsets = offs
			}
		}
		op.Keys = append([]histories.Key(nil), op.Keys...)
		out[i] = op
	}
	return out
}

// readsOf lists, in history order, every read of key k by ok op i.
func readsOf(op *histories.Op, i int, k int64) []ref {
	var refs []ref
	for m := range op.Mops {
		for r := range op.Mops[m].Records[k] {
			refs = append(refs, ref{i, m, r})
		}
	}
	return refs
}

func (r ref) record(ops []histories.Op, k int64) *histories.Record {
	return &ops[r.op].Mops[r.mop].Records[k][r.rec]
}

// removeRead deletes one read, dropping the key from the poll when it was
// the last record of k there.
func removeRead(ops []histories.Op, k int64, r ref) {
	recs := ops[r.op].Mops[r.mop].Records
	recs[k] = append(recs[k][:r.rec:r.rec], recs[k][r.rec+1:]...)
	if len(recs[k]) == 0 {
		delete(recs, k)
	}
}

// removeValue deletes every read of value v of key k.
func removeValue(ops []histories.Op, k, v int64) {
	for i := range ops {
		for _, m := range ops[i].Mops {
			rs, ok := m.Records[k]
			if !ok {
				continue
			}
			kept := rs[:0]
			for _, r := range rs {
				if r.Value != v {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				delete(m.Records, k)
			} else {
				m.Records[k] = kept
			}
		}
	}
}

// swapOffsets exchanges the values at offsets a and b of key k everywhere:
// in sends that report them and in reads that returned them. The log stays
// consistent; only who landed where changes.
func swapOffsets(ops []histories.Op, k, a, b int64) {
	other := func(o int64) int64 {
		if o == a {
			return b
		}
		return a
	}
	for i := range ops {
		for j := range ops[i].Mops {
			m := &ops[i].Mops[j]
			if m.F == histories.MSend && m.Key == k && (m.Offset == a || m.Offset == b) && ops[i].Type != histories.Invoke {
				m.Offset = other(m.Offset)
			}
		}
	}
	valAt := map[int64]int64{}
	for i := range ops {
		for _, m := range ops[i].Mops {
			for _, r := range m.Records[k] {
				if r.Offset == a || r.Offset == b {
					valAt[r.Offset] = r.Value
				}
			}
		}
	}
	for i := range ops {
		for _, m := range ops[i].Mops {
			for x, r := range m.Records[k] {
				if r.Offset == a || r.Offset == b {
					m.Records[k][x].Value = valAt[other(r.Offset)]
				}
			}
		}
	}
}
