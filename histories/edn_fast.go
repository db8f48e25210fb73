package histories

import (
	"bytes"
	"encoding/json"
)

// The EDN fast path reads the ops nearly every history is made of, client
// ops of known f with integer fields, straight into an Op without building
// the value tree the parser builds. It reads this shape only:
//
//	{:index N, :time N, :process N, :type :ok, :f :send, :value V, :group "g"}
//
// or Jepsen's #jepsen.history.Op{...} of the same, in any key order with :f
// before :value, other keys only with integer values (kept in Extra), where
// V is [[:send k v] ...],
// [[:send k [o v]] ...], [[:poll] ...], [[:poll {k [[o v] ...]}] ...],
// [[:commit {k o ...}] ...] for send, poll, txn and commit, or [k ...] for
// assign and subscribe, and :rebalance is {:revoked [k ...] :assigned
// [k ...]} (each optional, once). Anything else
// (other keys, a nemesis op, nil, tags, comments, strings with escapes,
// numbers that are not plain) makes it give up, and the parser reads the op
// as before: the fast path only ever returns what ednOp would.

// ednFast reads from data[i:] a whole op form of the shape above and
// returns the op, whether it has an index, and where its form ends; ok is
// false when the form is not of that shape.
// Its ops, micro-ops, records and keys come from s (nil: allocated for
// this op alone).
func ednFast(data []byte, i int, s *ednSlab) (op *Op, hasIndex bool, end int, ok bool) {
	if s == nil {
		s = &ednSlab{run: 1}
	}
	r := fastReader{b: data, i: i, s: s}
	op, hasIndex, ok = r.op()
	return op, hasIndex, r.i, ok
}

// fastReader walks data; every method returns false on any byte it does
// not expect.
type fastReader struct {
	b []byte
	i int
	s *ednSlab
}

// ednSlab holds the ops of a chunk and their micro-ops, records and keys
// in arrays they share, so that reading an op allocates its maps only.
// Each op owns its part of the arrays (capacity-limited), so a caller may
// keep any op: the arrays live as long as one of their ops does.
type ednSlab struct {
	run  int // ops per array of ops
	ops  []Op
	mops []Mop
	recs []Record
	keys []Key
}

// newOp returns a zero op from the slab. Arrays of ops are never grown,
// only replaced, so that earlier ops stay where their pointers say.
func (s *ednSlab) newOp() *Op {
	if len(s.ops) == cap(s.ops) {
		s.ops = make([]Op, 0, s.run)
	}
	s.ops = s.ops[:len(s.ops)+1]
	return &s.ops[len(s.ops)-1]
}

// part returns what was appended to a slab array since start, nil for
// nothing (as the parser gives).
func part[T any](a []T, start int) []T {
	if len(a) == start {
		return nil
	}
	return a[start:len(a):len(a)]
}

func (r *fastReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r', ',', '\f':
			r.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, 0 at the end.
func (r *fastReader) peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// eat consumes c after whitespace.
func (r *fastReader) eat(c byte) bool {
	if r.peek() != c {
		return false
	}
	r.i++
	return true
}

// ended says a token ends at r.i: what follows may start no other token.
func (r *fastReader) ended() bool {
	if r.i >= len(r.b) {
		return true
	}
	switch r.b[r.i] {
	case ' ', '\t', '\n', '\r', ',', '\f', ']', '}':
		return true
	}
	return false
}

// keyword reads :name and returns name.
func (r *fastReader) keyword() ([]byte, bool) {
	if r.peek() != ':' {
		return nil, false
	}
	start := r.i + 1
	for r.i++; r.i < len(r.b) && !isDelimiter(r.b[r.i]) && r.b[r.i] != '#'; r.i++ {
	}
	return r.b[start:r.i], r.i > start && r.ended()
}

// int reads a plain integer: an optional '-' and at most 18 digits.
func (r *fastReader) int() (int64, bool) {
	r.ws()
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	start := r.i
	var n int64
	for ; r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9'; r.i++ {
		n = n*10 + int64(r.b[r.i]-'0')
	}
	if d := r.i - start; d == 0 || d > 18 || !r.ended() {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// str reads a string without escapes.
func (r *fastReader) str() (string, bool) {
	if r.peek() != '"' {
		return "", false
	}
	for j := r.i + 1; j < len(r.b); j++ {
		switch r.b[j] {
		case '\\':
			return "", false
		case '"':
			s := string(r.b[r.i+1 : j])
			r.i = j + 1
			return s, r.ended()
		}
	}
	return "", false
}

// jepsenOpTag is the tag Jepsen writes before each op map.
const jepsenOpTag = "#jepsen.history.Op"

func (r *fastReader) op() (*Op, bool, bool) {
	if r.peek() == '#' {
		if !bytes.HasPrefix(r.b[r.i:], []byte(jepsenOpTag)) {
			return nil, false, false
		}
		r.i += len(jepsenOpTag)
	}
	if !r.eat('{') {
		return nil, false, false
	}
	op := r.s.newOp()
	var hasIndex, hasType, hasProcess, hasF, hasValue bool
	for {
		if r.eat('}') {
			return op, hasIndex, hasType && hasProcess && hasF
		}
		k, ok := r.keyword()
		if !ok {
			return nil, false, false
		}
		switch string(k) {
		case "index":
			op.Index, ok = r.int()
			hasIndex = true
		case "time":
			op.Time, ok = r.int()
		case "process":
			op.Process, ok = r.int()
			hasProcess = true
		case "type":
			op.Type, ok = r.opType()
			hasType = true
		case "f":
			op.F, ok = r.f()
			hasF = true
		case "value":
			ok = hasF && !hasValue && r.value(op)
			hasValue = true
		case "group":
			op.Group, ok = r.str()
		case "rebalance":
			ok = op.Rebalance == nil && r.rebalance(op)
		case "error", "rebalance-log":
			return nil, false, false
		default:
			ok = r.extra(op, string(k))
		}
		if !ok {
			return nil, false, false
		}
	}
}

// extra keeps an integer-valued key's text in op.Extra, as ednOp does.
func (r *fastReader) extra(op *Op, name string) bool {
	r.ws()
	start := r.i
	if _, ok := r.int(); !ok {
		return false
	}
	if op.Extra == nil {
		op.Extra = make(map[string]json.RawMessage)
	}
	op.Extra[name] = appendString(nil, string(r.b[start:r.i]))
	return true
}

func (r *fastReader) opType() (Type, bool) {
	k, ok := r.keyword()
	if !ok {
		return "", false
	}
	switch string(k) {
	case "invoke":
		return Invoke, true
	case "ok":
		return OK, true
	case "fail":
		return Fail, true
	case "info":
		return Info, true
	}
	return "", false
}

// f reads the client fs the fast path knows.
func (r *fastReader) f() (string, bool) {
	k, ok := r.keyword()
	if !ok {
		return "", false
	}
	for _, f := range [...]string{FSend, FPoll, FTxn, FCommit, FAssign, FSubscribe} {
		if string(k) == f {
			return f, true
		}
	}
	return "", false
}

func (r *fastReader) value(op *Op) bool {
	if !r.eat('[') {
		return false
	}
	keys := op.F == FAssign || op.F == FSubscribe
	s := r.s
	startKeys, startMops := len(s.keys), len(s.mops)
	for !r.eat(']') {
		if keys {
			k, ok := r.int()
			if !ok {
				return false
			}
			s.keys = append(s.keys, k)
			continue
		}
		m, ok := r.mop()
		if !ok {
			return false
		}
		s.mops = append(s.mops, m)
	}
	op.Keys, op.Mops = part(s.keys, startKeys), part(s.mops, startMops)
	return true
}

// mop reads [:send k v], [:send k [o v]], [:poll], [:poll {k [[o v] ...]}],
// [:commit] or [:commit {k o ...}].
func (r *fastReader) mop() (Mop, bool) {
	m := Mop{Offset: NoOffset}
	if !r.eat('[') {
		return m, false
	}
	f, ok := r.keyword()
	if !ok {
		return m, false
	}
	switch string(f) {
	case "send":
		m.F = MSend
		if m.Key, ok = r.int(); !ok {
			return m, false
		}
		if r.peek() == '[' {
			r.i++
			m.Offset, ok = r.int()
			m.Value, ok = r.int2(ok)
			ok = ok && r.eat(']')
		} else {
			m.Value, ok = r.int()
		}
	case "poll":
		m.F = MPoll
		if r.peek() == '{' {
			m.Records, ok = r.records()
		}
	case "commit":
		m.F = MCommit
		if r.peek() == '{' {
			m.Offsets, ok = r.offsets()
		}
	default:
		return m, false
	}
	return m, ok && r.eat(']')
}

// int2 reads an integer when ok.
func (r *fastReader) int2(ok bool) (int64, bool) {
	if !ok {
		return 0, false
	}
	return r.int()
}

// records reads {k [[o v] ...] ...}; a key twice is the parser's error.
func (r *fastReader) records() (map[Key][]Record, bool) {
	r.i++ // '{'
	out := map[Key][]Record{}
	for !r.eat('}') {
		k, ok := r.int()
		if !ok || !r.eat('[') {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		start := len(r.s.recs)
		for !r.eat(']') {
			if !r.eat('[') {
				return nil, false
			}
			o, ok := r.int()
			v, ok := r.int2(ok)
			if !ok || !r.eat(']') {
				return nil, false
			}
			r.s.recs = append(r.s.recs, Record{Offset: o, Value: v})
		}
		out[k] = part(r.s.recs, start)
	}
	return out, true
}

// offsets reads {k o ...}; a key twice is the parser's error.
func (r *fastReader) offsets() (map[Key]int64, bool) {
	r.i++ // '{'
	out := map[Key]int64{}
	for !r.eat('}') {
		k, ok := r.int()
		o, ok := r.int2(ok)
		if !ok {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		out[k] = o
	}
	return out, true
}

// rebalance reads {:revoked [k ...] :assigned [k ...]}, each field
// optional and once, into op.Rebalance.
func (r *fastReader) rebalance(op *Op) bool {
	if !r.eat('{') {
		return false
	}
	rb := &Rebalance{}
	var revoked, assigned bool
	for !r.eat('}') {
		name, ok := r.keyword()
		switch {
		case ok && string(name) == "revoked" && !revoked:
			rb.Revoked, ok = r.keys()
			revoked = true
		case ok && string(name) == "assigned" && !assigned:
			rb.Assigned, ok = r.keys()
			assigned = true
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	op.Rebalance = rb
	return true
}

// keys reads [k ...]; no key gives nil, as ednKeys does.
func (r *fastReader) keys() ([]Key, bool) {
	if !r.eat('[') {
		return nil, false
	}
	var keys []Key
	for !r.eat(']') {
		k, ok := r.int()
		if !ok {
			return nil, false
		}
		keys = append(keys, k)
	}
	return keys, true
}
