package groundtruth

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Kind is an anomaly an injector creates, named as the checkers name it.
type Kind string

// The kinds Inject knows.
const (
	LostWrite           Kind = "lost-write"
	Unseen              Kind = "unseen"
	Duplicate           Kind = "duplicate"
	InconsistentOffsets Kind = "inconsistent-offsets"
	NonmonotonicSend    Kind = "nonmonotonic-send"
	IntNonmonotonicSend Kind = "int-nonmonotonic-send"
	IntSendSkip         Kind = "int-send-skip"
	PollSkip            Kind = "poll-skip"
	NonmonotonicPoll    Kind = "nonmonotonic-poll"
	IntPollSkip         Kind = "int-poll-skip"
	IntNonmonotonicPoll Kind = "int-nonmonotonic-poll"
	DuplicateDelivery   Kind = "duplicate-delivery"
	LostDelivery        Kind = "lost-delivery"
	G1a                 Kind = "G1a"
	PrecommittedRead    Kind = "precommitted-read"
	G0                  Kind = "G0"
	G1c                 Kind = "G1c"
	TornTransaction     Kind = "torn-transaction"
	// InterleavedTransaction is named apart from TornTransaction: nothing
	// is lost, so it leaves the guarantee alone.
	InterleavedTransaction Kind = "interleaved-transaction"
)

// Kinds lists every kind Inject knows, in a fixed order.
func Kinds() []Kind {
	return []Kind{LostWrite, Unseen, Duplicate, InconsistentOffsets, NonmonotonicSend, IntNonmonotonicSend,
		IntSendSkip, PollSkip, NonmonotonicPoll, IntPollSkip, IntNonmonotonicPoll, DuplicateDelivery,
		LostDelivery, G1a, PrecommittedRead, G0, G1c, TornTransaction, InterleavedTransaction}
}

// Injection is a history with one anomaly injected.
type Injection struct {
	Ops []histories.Op
	// Expect is every anomaly a correct checker must report for Ops, and
	// nothing else may be reported. It is Kind alone except where the kind
	// implies another (a lost write is also unseen, and a lost write of a
	// transaction with other writes leaves that transaction torn).
	Expect []Kind
	// WWDeps says the anomaly only shows with write-write dependencies on
	// (G0 is a cycle of ww edges alone).
	WWDeps bool
}

type injector func(ops []histories.Op, f *facts, ch Chooser) (Injection, error)

var injectors = map[Kind]injector{
	LostWrite: injectLostWrite, Unseen: injectUnseen, Duplicate: injectDuplicate,
	InconsistentOffsets: injectInconsistentOffsets, NonmonotonicSend: injectNonmonotonicSend,
	IntNonmonotonicSend: injectIntNonmonotonicSend, IntSendSkip: injectIntSendSkip,
	PollSkip: injectPollSkip, NonmonotonicPoll: injectNonmonotonicPoll, IntPollSkip: injectIntPollSkip,
	IntNonmonotonicPoll: injectIntNonmonotonicPoll, DuplicateDelivery: injectDuplicateDelivery,
	LostDelivery: injectLostDelivery, G1a: injectG1a, PrecommittedRead: injectPrecommittedRead,
	G0: injectG0, G1c: injectG1c, TornTransaction: injectTornTransaction,
	InterleavedTransaction: injectInterleavedTransaction,
}

// Inject returns a copy of ops, a correct history as Run makes them, with
// exactly one anomaly of kind, choosing where with ch. It returns
// ErrNotApplicable when ops has nothing to inject into (e.g. no aborted
// transaction for G1a). ops itself is never changed.
func Inject(ops []histories.Op, kind Kind, ch Chooser) (Injection, error) {
	inj, ok := injectors[kind]
	if !ok {
		return Injection{}, fmt.Errorf("groundtruth: no injector for %q", kind)
	}
	f, err := learn(ops)
	if err != nil {
		return Injection{}, err
	}
	return inj(deepCopy(ops), f, ch)
}

func just(ops []histories.Op, k Kind) (Injection, error) {
	return Injection{Ops: ops, Expect: []Kind{k}}, nil
}

// lastAcked lists the keys whose last record is an acknowledged value no
// group member processed: dropping it loses a write without making any
// consumer skip or the group lose a delivery.
func lastAcked(ops []histories.Op, f *facts) []int64 {
	var ks []int64
	for _, k := range f.keys {
		r, ok := f.lastRec[k]
		if !ok || f.groupRead[kv{k, r.Value}] {
			continue
		}
		if w, ok := f.writer[kv{k, r.Value}]; ok && ops[w].Type == histories.OK {
			ks = append(ks, k)
		}
	}
	return ks
}

// injectLostWrite drops the last acked value of a key from every read, then
// a fresh producer appends a value after it that a fresh consumer reads: the
// dropped value sits below what was read, yet nobody read it.
func injectLostWrite(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	ks := lastAcked(ops, f)
	i, err := pick(ch, len(ks))
	if err != nil {
		return Injection{}, err
	}
	k := ks[i]
	v := f.lastRec[k].Value
	removeValue(ops, k, v)
	a := &appender{ops: ops, next: f.maxProc}
	x := histories.Record{Offset: f.maxOff[k] + 1, Value: f.maxValue + 1}
	a.send(histories.FSend, histories.Mop{F: histories.MSend, Key: k, Value: x.Value, Offset: x.Offset})
	a.read("", k, x)
	return Injection{Ops: a.ops, Expect: withTorn(ops, f.writer[kv{k, v}], LostWrite, Unseen)}, nil
}

// withTorn is kinds, plus torn-transaction when the lost write's op is a
// transaction that tears without it (tornBy).
func withTorn(ops []histories.Op, writer int, kinds ...Kind) []Kind {
	if tornBy(ops, writer) {
		return append(kinds, TornTransaction)
	}
	return kinds
}

// injectUnseen drops the last acked value of a key from every read: nobody
// read past it, so it is unseen but not provably lost. A transaction's other
// writes are still read, so its transaction is torn: the final reads read
// the whole key and did not return it.
func injectUnseen(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	ks := lastAcked(ops, f)
	i, err := pick(ch, len(ks))
	if err != nil {
		return Injection{}, err
	}
	k := ks[i]
	v := f.lastRec[k].Value
	removeValue(ops, k, v)
	return Injection{Ops: ops, Expect: withTorn(ops, f.writer[kv{k, v}], Unseen)}, nil
}

// okSends lists acknowledged (key, value) sends with known offsets.
func okSends(ops []histories.Op) []kv {
	var out []kv
	for i := range ops {
		if ops[i].Type != histories.OK {
			continue
		}
		for _, m := range ops[i].Mops {
			if m.F == histories.MSend && m.Offset >= 0 {
				out = append(out, kv{m.Key, m.Value})
			}
		}
	}
	return out
}

// injectDuplicate has a fresh consumer read an acked value again at a new
// offset past the end of its key: one value at two offsets.
func injectDuplicate(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	sends := okSends(ops)
	i, err := pick(ch, len(sends))
	if err != nil {
		return Injection{}, err
	}
	s := sends[i]
	a := &appender{ops: ops, next: f.maxProc}
	a.read("", s.k, histories.Record{Offset: f.maxOff[s.k] + 1, Value: s.v})
	return just(a.ops, Duplicate)
}

// injectInconsistentOffsets has a fresh producer send a value (offset not
// reported) that a fresh consumer reads at an offset another value holds.
func injectInconsistentOffsets(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	i, err := pick(ch, len(f.keys))
	if err != nil {
		return Injection{}, err
	}
	k := f.keys[i]
	r, ok := f.lastRec[k]
	if !ok {
		return Injection{}, ErrNotApplicable
	}
	a := &appender{ops: ops, next: f.maxProc}
	x := f.maxValue + 1
	a.send(histories.FSend, histories.Send(k, x))
	a.read("", k, histories.Record{Offset: r.Offset, Value: x})
	return just(a.ops, InconsistentOffsets)
}

// injectG1a has a fresh consumer read a value whose send failed (an aborted
// transaction's or a failed send's), past the end of its key.
func injectG1a(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	var failed []kv
	for i := range ops {
		if ops[i].Type != histories.Fail {
			continue
		}
		for _, m := range ops[i].Mops {
			if m.F == histories.MSend {
				failed = append(failed, kv{m.Key, m.Value})
			}
		}
	}
	i, err := pick(ch, len(failed))
	if err != nil {
		return Injection{}, err
	}
	a := &appender{ops: ops, next: f.maxProc}
	a.read("", failed[i].k, histories.Record{Offset: f.maxOff[failed[i].k] + 1, Value: failed[i].v})
	return just(a.ops, G1a)
}

// injectPrecommittedRead appends a fresh committed txn that reads back the
// value it sends.
func injectPrecommittedRead(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	i, err := pick(ch, len(f.keys))
	if err != nil {
		return Injection{}, err
	}
	k := f.keys[i]
	x := histories.Record{Offset: f.maxOff[k] + 1, Value: f.maxValue + 1}
	a := &appender{ops: ops, next: f.maxProc}
	a.send(histories.FTxn, histories.Mop{F: histories.MSend, Key: k, Value: x.Value, Offset: x.Offset},
		histories.Mop{F: histories.MPoll, Records: map[histories.Key][]histories.Record{k: {x}}})
	return just(a.ops, PrecommittedRead)
}

// injectG1c appends two committed txns on one key, each reading the other's
// write: a cycle of write-read dependencies.
func injectG1c(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	i, err := pick(ch, len(f.keys))
	if err != nil {
		return Injection{}, err
	}
	k := f.keys[i]
	x := histories.Record{Offset: f.maxOff[k] + 1, Value: f.maxValue + 1}
	y := histories.Record{Offset: f.maxOff[k] + 2, Value: f.maxValue + 2}
	a := &appender{ops: ops, next: f.maxProc}
	a.send(histories.FTxn, histories.Mop{F: histories.MSend, Key: k, Value: x.Value, Offset: x.Offset},
		histories.Mop{F: histories.MPoll, Records: map[histories.Key][]histories.Record{k: {y}}})
	a.send(histories.FTxn, histories.Mop{F: histories.MSend, Key: k, Value: y.Value, Offset: y.Offset},
		histories.Mop{F: histories.MPoll, Records: map[histories.Key][]histories.Record{k: {x}}})
	return just(a.ops, G1c)
}

// injectG0 appends two committed txns writing two keys in opposite orders (a
// cycle of write-write dependencies) and a fresh consumer reading all four
// values, so none is unseen.
func injectG0(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	if len(f.keys) < 2 {
		return Injection{}, ErrNotApplicable
	}
	i, err := pick(ch, len(f.keys)-1)
	if err != nil {
		return Injection{}, err
	}
	k1, k2 := f.keys[i], f.keys[i+1]
	v := f.maxValue
	rec := func(k, d int64) histories.Record {
		return histories.Record{Offset: f.maxOff[k] + d, Value: v + 4*k + d}
	}
	send := func(r histories.Record, k int64) histories.Mop {
		return histories.Mop{F: histories.MSend, Key: k, Value: r.Value, Offset: r.Offset}
	}
	a := &appender{ops: ops, next: f.maxProc}
	a.send(histories.FTxn, send(rec(k1, 1), k1), send(rec(k2, 2), k2))
	a.send(histories.FTxn, send(rec(k1, 2), k1), send(rec(k2, 1), k2))
	p := a.fresh()
	keys := []histories.Key{k1, k2}
	a.pair(histories.Op{Process: p, F: histories.FAssign, Keys: keys}, histories.Op{Process: p, F: histories.FAssign, Keys: keys})
	a.pair(histories.Op{Process: p, F: histories.FPoll, Mops: []histories.Mop{{F: histories.MPoll}}},
		histories.Op{Process: p, F: histories.FPoll, Mops: []histories.Mop{{F: histories.MPoll, Records: map[histories.Key][]histories.Record{
			k1: {rec(k1, 1), rec(k1, 2)}, k2: {rec(k2, 1), rec(k2, 2)}}}}})
	return Injection{Ops: a.ops, Expect: []Kind{G0}, WWDeps: true}, nil
}
