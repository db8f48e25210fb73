package groundtruth

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// sendAt is an acked send: op index, key, value and offset.
type sendAt struct {
	op        int
	k, v, off int64
	only      bool // the op's only send to k
	proc      int64
	plain     bool // a send op (no reads, so no wr edges into it)
}

// ackedSends lists the acked sends with known offsets, in history order.
func ackedSends(ops []histories.Op) []sendAt {
	var out []sendAt
	for i := range ops {
		op := &ops[i]
		if op.Type != histories.OK {
			continue
		}
		perKey := map[int64]int{}
		for _, m := range op.Mops {
			if m.F == histories.MSend {
				perKey[m.Key]++
			}
		}
		for _, m := range op.Mops {
			if m.F == histories.MSend && m.Offset >= 0 {
				out = append(out, sendAt{op: i, k: m.Key, v: m.Value, off: m.Offset,
					only: perKey[m.Key] == 1, proc: op.Process, plain: op.F == histories.FSend})
			}
		}
	}
	return out
}

// injectNonmonotonicSend swaps where two consecutive sends of one process to
// one key landed, so the later send sits before the earlier one.
func injectNonmonotonicSend(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	type pair struct{ a, b sendAt }
	var pairs []pair
	prev := map[kv]sendAt{} // (process, key) -> its last send
	for _, s := range ackedSends(ops) {
		id := kv{s.proc, s.k}
		if p, ok := prev[id]; ok && p.only && s.only && p.plain && s.plain && p.op != s.op &&
			keptBetween(ops, s.proc, s.k, p.op, s.op) {
			pairs = append(pairs, pair{p, s})
		}
		prev[id] = s
	}
	i, err := pick(ch, len(pairs))
	if err != nil {
		return Injection{}, err
	}
	swapOffsets(ops, pairs[i].a.k, pairs[i].a.off, pairs[i].b.off)
	return just(ops, NonmonotonicSend)
}

// keptBetween reports whether process proc kept key k through every ok or
// info assign or subscribe between ops from and to: one that drops k resets
// the process's send position (as in Jepsen's checker), so a reordering
// across it is no anomaly.
func keptBetween(ops []histories.Op, proc, k int64, from, to int) bool {
	for _, op := range ops[from+1 : to] {
		if op.Process == proc && (op.F == histories.FAssign || op.F == histories.FSubscribe) &&
			(op.Type == histories.OK || op.Type == histories.Info) && !slices.Contains(op.Keys, k) {
			return false
		}
	}
	return true
}

// opSendsTo lists op i's acked sends to each key, in mop order.
func opSendsTo(ops []histories.Op) [][]sendAt {
	var out [][]sendAt
	byOpKey := map[kv][]sendAt{}
	var order []kv
	for _, s := range ackedSends(ops) {
		id := kv{int64(s.op), s.k}
		if _, ok := byOpKey[id]; !ok {
			order = append(order, id)
		}
		byOpKey[id] = append(byOpKey[id], s)
	}
	for _, id := range order {
		out = append(out, byOpKey[id])
	}
	return out
}

// injectIntNonmonotonicSend swaps the offsets of an op's two sends to one
// key: inside the op, the second send lands first.
func injectIntNonmonotonicSend(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	var twos [][]sendAt
	for _, ss := range opSendsTo(ops) {
		if len(ss) == 2 {
			twos = append(twos, ss)
		}
	}
	i, err := pick(ch, len(twos))
	if err != nil {
		return Injection{}, err
	}
	swapOffsets(ops, twos[i][0].k, twos[i][0].off, twos[i][1].off)
	return just(ops, IntNonmonotonicSend)
}

// injectIntSendSkip swaps an op's last send to a key with the next value of
// that key (a plain send of another process), so another value lands between
// two sends of the op.
func injectIntSendSkip(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	next := map[kv]sendAt{} // (key, offset) -> the acked send at the next visible offset
	byKey := map[int64][]sendAt{}
	for _, s := range ackedSends(ops) {
		byKey[s.k] = append(byKey[s.k], s)
	}
	vis := visibleOffsets(ops, f)
	for k, ss := range byKey {
		at := map[int64]sendAt{}
		for _, s := range ss {
			at[s.off] = s
		}
		offs := vis[k]
		for j := 0; j+1 < len(offs); j++ {
			if s, ok := at[offs[j+1]]; ok {
				next[kv{k, offs[j]}] = s
			}
		}
	}
	type cand struct{ last, x sendAt }
	var cands []cand
	for _, ss := range opSendsTo(ops) {
		if len(ss) < 2 {
			continue
		}
		last := ss[len(ss)-1]
		if x, ok := next[kv{last.k, last.off}]; ok && x.plain && x.only && x.proc != last.proc &&
			!laterTxnBelow(ops, last, x.off) {
			cands = append(cands, cand{last, x})
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	swapOffsets(ops, cands[i].last.k, cands[i].last.off, cands[i].x.off)
	return just(ops, IntSendSkip)
}

// laterTxnBelow reports whether moving txn send s to offset off would put it
// above a write of its process's later txn: a committed transaction's write
// inside a later one is an interleaved transaction, not only a skip.
func laterTxnBelow(ops []histories.Op, s sendAt, off int64) bool {
	if ops[s.op].F != histories.FTxn {
		return false
	}
	for _, op := range ops[s.op+1:] {
		if op.Process != s.proc || op.F != histories.FTxn || op.Type == histories.Invoke {
			continue
		}
		for _, m := range op.Mops {
			if m.F == histories.MSend && m.Key == s.k && m.Offset >= 0 && m.Offset < off {
				return true
			}
		}
	}
	return false
}

// visibleOffsets lists, per key, the offsets the final reads returned.
func visibleOffsets(ops []histories.Op, f *facts) map[int64][]int64 {
	out := map[int64][]int64{}
	for i := range ops {
		op := &ops[i]
		if op.Process != f.finalProc || op.Type != histories.OK {
			continue
		}
		for _, m := range op.Mops {
			for k, rs := range m.Records {
				for _, r := range rs {
					out[k] = append(out[k], r.Offset)
				}
			}
		}
	}
	return out
}
