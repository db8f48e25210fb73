package groundtruth

import "github.com/kafkachaos/kafkachaos/histories"

// injectTornTransaction appends a fresh process's info txn that writes x
// and y, on keys that may be the same; a fresh consumer reads x, so the txn
// committed, and y is in no read although the final reads covered its key.
// The txn reports no offsets, so no send is out of order.
func injectTornTransaction(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	i, err := pick(ch, len(f.keys))
	if err != nil {
		return Injection{}, err
	}
	k1, k2 := f.keys[i], f.keys[ch.Intn(len(f.keys))]
	a := &appender{ops: ops, next: f.maxProc}
	x := histories.Record{Offset: f.maxOff[k1] + 1, Value: f.maxValue + 1}
	a.txn(a.fresh(), histories.Info, histories.Send(k1, x.Value), histories.Send(k2, f.maxValue+2))
	a.read("", k1, x)
	return just(a.ops, TornTransaction)
}

// injectInterleavedTransaction appends a fresh process's info txn that
// writes x, read by a fresh consumer, and the process's next, ok, txn that
// wrote y at the offset just below x: the earlier transaction's write landed
// inside the later one. Every write is read, so nothing is torn. The info
// txn's send moves no send position, so no send is out of order.
func injectInterleavedTransaction(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	i, err := pick(ch, len(f.keys))
	if err != nil {
		return Injection{}, err
	}
	k := f.keys[i]
	a := &appender{ops: ops, next: f.maxProc}
	p := a.fresh()
	y := histories.Record{Offset: f.maxOff[k] + 1, Value: f.maxValue + 2}
	x := histories.Record{Offset: y.Offset + 1, Value: f.maxValue + 1}
	a.txn(p, histories.Info, histories.Mop{F: histories.MSend, Key: k, Value: x.Value, Offset: x.Offset})
	a.txn(p, histories.OK, histories.Mop{F: histories.MSend, Key: k, Value: y.Value, Offset: y.Offset})
	a.read("", k, y, x)
	return just(a.ops, InterleavedTransaction)
}

// txn appends process p's txn invocation and its completion of type t with
// the given sends.
func (a *appender) txn(p int64, t histories.Type, sends ...histories.Mop) {
	inv := make([]histories.Mop, len(sends))
	for i, m := range sends {
		inv[i] = histories.Send(m.Key, m.Value)
	}
	a.add(histories.Op{Process: p, Type: histories.Invoke, F: histories.FTxn, Mops: inv})
	a.add(histories.Op{Process: p, Type: t, F: histories.FTxn, Mops: sends})
}

// tornBy reports whether losing a write of ops[w] tears its transaction:
// a committed txn's other writes are all read (the final reads read every
// key), so losing one of two or more leaves the txn partly visible.
func tornBy(ops []histories.Op, w int) bool {
	if ops[w].F != histories.FTxn {
		return false
	}
	n := 0
	for _, m := range ops[w].Mops {
		if m.F == histories.MSend {
			n++
		}
	}
	return n > 1
}
