package checkers

import (
	"encoding/json"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// sendRef is one send of an op, resolved against the version order.
type sendRef struct {
	ks     *keyState
	value  int64
	offset int64 // as reported by the send; NoOffset when unknown
	slot   int32
	idx    int32 // dense index in the version order; -1 unknown
}

// logOffset is where the send landed: its reported offset, else where the
// version order placed its value (a send without offset that was read),
// else NoOffset.
func (w sendRef) logOffset() int64 {
	if w.offset < 0 && w.idx >= 0 {
		return w.ks.log.byIndex[w.idx]
	}
	return w.offset
}

// readRef is one record returned by a poll of an op.
type readRef struct {
	ks     *keyState
	offset int64
	value  int64
	slot   int32
	idx    int32
}

// opView is one op of pass 2 with its sends and reads resolved once, so each
// detector can walk them without further map lookups. Its slices are reused
// from op to op.
type opView struct {
	op         *histories.Op
	keys       map[int64]*keyState
	node       int32 // graph node, -1 if none
	sends      []sendRef
	reads      []readRef // in mop order; keys ascending within one poll
	rebalanced []int64   // keys named by the op's rebalance info
	keyBuf     []int64
}

// resolve fills v for op. It returns why, when the op's rebalance-log
// cannot be read.
func (v *opView) resolve(op *histories.Op, keys map[int64]*keyState, node int32) string {
	v.op, v.node, v.keys = op, node, keys
	v.sends, v.reads, v.rebalanced = v.sends[:0], v.reads[:0], v.rebalanced[:0]
	for i := range op.Mops {
		m := &op.Mops[i]
		switch {
		case m.F == histories.MSend && sendsOf(op):
			v.addSend(m, keys[m.Key])
		case m.F == histories.MPoll && readsOf(op):
			v.addPoll(m, keys)
		}
	}
	return v.resolveRebalance(op)
}

func (v *opView) addSend(m *histories.Mop, ks *keyState) {
	// Usually the log holds this very value at the send's offset, which
	// spares a search.
	if m.Offset >= 0 {
		if e, ok := ks.log.get(m.Offset); ok && e.val == m.Value {
			v.sends = append(v.sends, sendRef{ks, m.Value, m.Offset, e.slot, ks.log.idx(m.Offset)})
			return
		}
	}
	vs, _ := ks.slots.find(m.Value)
	v.sends = append(v.sends, sendRef{ks, m.Value, m.Offset, vs.slot, vs.idx})
}

func (v *opView) addPoll(m *histories.Mop, keys map[int64]*keyState) {
	v.keyBuf = v.keyBuf[:0]
	for k := range m.Records {
		v.keyBuf = append(v.keyBuf, k)
	}
	slices.Sort(v.keyBuf)
	for _, k := range v.keyBuf {
		ks := keys[k]
		for _, r := range m.Records[k] {
			e, _ := ks.log.get(r.Offset)
			s := e.slot
			if e.val != r.Value {
				vs, _ := ks.slots.find(r.Value)
				s = vs.slot
			}
			v.reads = append(v.reads, readRef{ks, r.Offset, r.Value, s, ks.log.idx(r.Offset)})
		}
	}
}

// rebalanceLogKey is Jepsen's extra field listing rebalances inside an op.
const rebalanceLogKey = "rebalance-log"

// resolveRebalance collects the keys rebalanced during op. op.Rebalance is
// authoritative: the EDN importer fills it from Jepsen's :rebalance-log and
// keeps the log's EDN text in Extra (a JSON string) only so that export
// loses nothing, so Extra is read only when Rebalance is nil and holds JSON
// other than a string.
func (v *opView) resolveRebalance(op *histories.Op) string {
	if rb := op.Rebalance; rb != nil {
		v.rebalanced = append(v.rebalanced, rb.Revoked...)
		v.rebalanced = append(v.rebalanced, rb.Assigned...)
		return ""
	}
	if len(op.Extra) == 0 {
		return ""
	}
	raw, ok := op.Extra[rebalanceLogKey]
	if !ok || isJSONString(raw) {
		return ""
	}
	var events []struct {
		Keys []int64 `json:"keys"`
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		return "op index " + itoa(op.Index) + " (" + err.Error() + ")"
	}
	for _, e := range events {
		v.rebalanced = append(v.rebalanced, e.Keys...)
	}
	return ""
}

// isJSONString reports whether raw is a JSON string: the EDN importer's
// verbatim copy of a log it already read into Op.Rebalance (nil there when
// the log named no keys).
func isJSONString(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '"'
	}
	return false
}

func (v *opView) isRebalanced(k int64) bool {
	return slices.Contains(v.rebalanced, k)
}
