package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
)

// EDNReader reads a Jepsen history (jepsen.tests.kafka workload) in EDN:
// either one vector of op maps or one op map per line (any whitespace
// between maps will do). Op maps may be plain or tagged
// (#jepsen.history.Op{...}), with keyword or string keys.
//
// Mapping: process :nemesis is -1; :value becomes Mops (send, poll, txn,
// commit), Keys (assign, subscribe) or, for any other f, Value converted to
// JSON (keywords and symbols become strings, sets and lists arrays, tags are
// dropped). :error becomes Error, and every other key is kept in Extra as a
// JSON string: both hold a string's contents, or else the value's EDN text
// verbatim, so that export writes it back as it was; :rebalance-log is also
// read into Rebalance (keys of entries typed :assigned are assigned, all
// others revoked) unless the op has our own :rebalance. Ops without :index
// are numbered densely from 0; given indexes must increase and may skip.
//
// The whole file is read into memory (Jepsen histories are small next to
// ours); chunks of ops are read in parallel (edn_blocks.go).
type EDNReader struct {
	r        io.Reader
	name     string
	warnings []Warning
}

// NewEDNReader reads EDN from r; name is used in errors and warnings.
func NewEDNReader(r io.Reader, name string) *EDNReader {
	return &EDNReader{r: r, name: name}
}

// Warnings returns what the last Scan tolerated (e.g. a cut-off last op).
func (r *EDNReader) Warnings() []Warning { return r.warnings }

// Scan calls fn with every op in order; each op is fresh (the caller may
// keep it). It returns the first bad op as a *ParseError, or fn's error.
func (r *EDNReader) Scan(fn func(*Op) error) error {
	data, err := readAll(r.r)
	if err != nil {
		return err
	}
	r.warnings = nil
	st := ednScan{EDNReader: r, p: ednParser{b: data}, prev: -1, indexed: -1}
	return st.run(fn)
}

// readAll reads r whole, into one allocation when r is a file that says
// its size: growing a buffer of a large history by doubling copies it
// over and over.
func readAll(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			buf.Grow(int(fi.Size()) + bytes.MinRead)
		}
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// ReadEDN reads a whole EDN history into memory.
func ReadEDN(r io.Reader, name string) ([]Op, []Warning, error) {
	er := NewEDNReader(r, name)
	var ops []Op
	err := er.Scan(func(op *Op) error {
		ops = append(ops, *op)
		return nil
	})
	return ops, er.Warnings(), err
}

// ednScan is the state of one pass over an EDN history.
type ednScan struct {
	*EDNReader
	p        ednParser
	inVector bool
	prev     int64 // index of the previous op, -1 before the first
	indexed  int   // -1 unknown, 0 ops lack :index, 1 ops have it
}

func (st *ednScan) run(fn func(*Op) error) error {
	p := &st.p
	end, err := p.atEnd()
	if err != nil || end {
		return st.wrap(err)
	}
	if p.b[p.i] == '[' {
		p.i++
		st.inVector = true
	}
	if err := st.scanChunks(fn); err != nil {
		return err
	}
	for {
		op, done, err := st.nextOp()
		if err != nil || done {
			return err
		}
		if err := fn(op); err != nil {
			return err
		}
	}
}

// nextOp reads the next op map, or reports done at the end of the history.
func (st *ednScan) nextOp() (*Op, bool, error) {
	p := &st.p
	if err := p.ws(0); err != nil {
		return nil, false, st.wrap(err)
	}
	if st.inVector {
		if p.i >= len(p.b) {
			return nil, false, st.wrap(p.eofError(p.i, "history vector is not closed"))
		}
		if p.b[p.i] == ']' {
			p.i++
			if end, err := p.atEnd(); err != nil || !end {
				return nil, false, st.wrap(errors.Join(err, p.errorf(p.i, "data after the history vector")))
			}
			return nil, true, nil
		}
	} else if p.i >= len(p.b) {
		return nil, true, nil
	}
	start := p.i
	p.reclaim() // the previous op is built: its values are done with
	v, err := p.value(0)
	if err != nil {
		var ee *ednError
		if errors.As(err, &ee) && ee.eof && !st.inVector {
			st.warnings = append(st.warnings, Warning{File: st.name, Line: lineOf(p.b, start),
				Msg: fmt.Sprintf("last op is cut off (%s) and was ignored", ee.msg)})
			return nil, true, nil
		}
		return nil, false, st.wrap(err)
	}
	op, hasIndex, err := ednOp(&v, p.b)
	if err == nil {
		err = st.number(op, hasIndex, v.start)
	}
	if err != nil {
		return nil, false, st.wrap(err)
	}
	return op, false, nil
}

// number checks or assigns the op's index. Given indexes must increase but
// may skip: Jepsen's own checker tests and every filtered history have gaps,
// and cases must name the indexes the history gave.
func (st *ednScan) number(op *Op, hasIndex bool, pos int) error {
	has := 0
	if hasIndex {
		has = 1
	}
	if st.indexed == -1 {
		st.indexed = has
	}
	switch {
	case st.indexed != has:
		return &ednError{pos: pos, field: "index", msg: "some ops have an index and some do not"}
	case !hasIndex:
		op.Index = st.prev + 1
	case op.Index <= st.prev:
		return &ednError{pos: pos, field: "index", msg: indexOrder(op.Index, st.prev)}
	}
	st.prev = op.Index
	return nil
}

// indexOrder says why index cannot follow prev (-1 before the first op).
func indexOrder(index, prev int64) string {
	if prev < 0 {
		return fmt.Sprintf("index %d is negative", index)
	}
	return fmt.Sprintf("index %d does not follow %d (indexes must increase)", index, prev)
}

// wrap turns a parser error into a *ParseError with the line it is on.
func (st *ednScan) wrap(err error) error {
	var ee *ednError
	if err == nil || !errors.As(err, &ee) {
		return err
	}
	return &ParseError{File: st.name, Line: lineOf(st.p.b, ee.pos), Field: ee.field, Msg: ee.msg}
}

func fieldErr(v *ednVal, field, format string, args ...any) error {
	return &ednError{pos: v.start, field: field, msg: fmt.Sprintf(format, args...)}
}

// name returns the name of a keyword, string or symbol.
func (v *ednVal) name() (string, bool) {
	v = v.unwrap()
	switch v.kind {
	case ednKeyword, ednString, ednSymbol:
		return v.s, true
	}
	return "", false
}

func ednInteger(v *ednVal, field string) (int64, error) {
	v = v.unwrap()
	if v.kind != ednInt || v.big {
		return 0, fieldErr(v, field, "expected an integer")
	}
	return v.i, nil
}

// ednOp converts one op map. src is the input, for verbatim texts.
func ednOp(v *ednVal, src []byte) (*Op, bool, error) {
	m := v.unwrap()
	if m.kind != ednMap {
		return nil, false, fieldErr(m, "", "an op must be a map")
	}
	op := &Op{}
	var value, rebalanceLog *ednVal
	var hasIndex, hasType, hasProcess, hasF, hasRebalance bool
	for i := 0; i < len(m.items); i += 2 {
		k, val := &m.items[i], &m.items[i+1]
		name, ok := k.name()
		if !ok {
			return nil, false, fieldErr(k, "", "op map keys must be keywords or strings")
		}
		var err error
		switch name {
		case "index":
			op.Index, err = ednInteger(val, name)
			hasIndex = true
		case "time":
			op.Time, err = ednInteger(val, name)
		case "process":
			op.Process, err = ednProcess(val)
			hasProcess = true
		case "type":
			op.Type, err = ednType(val)
			hasType = true
		case "f":
			var ok bool
			if op.F, ok = val.name(); !ok {
				err = fieldErr(val, name, "expected a keyword")
			}
			hasF = true
		case "value":
			value = val
		case "error":
			op.Error = ednText(val, src)
		case "group":
			if g := val.unwrap(); g.kind == ednString {
				op.Group = g.s
			} else {
				err = fieldErr(val, name, "expected a string")
			}
		case "rebalance":
			op.Rebalance, err = ednRebalance(val)
			hasRebalance = true
		default:
			if name == "rebalance-log" {
				rebalanceLog = val
			}
			if op.Extra == nil {
				op.Extra = make(map[string]json.RawMessage)
			}
			op.Extra[name] = appendString(nil, ednText(val, src))
		}
		if err != nil {
			return nil, false, err
		}
	}
	for _, req := range []struct {
		ok   bool
		name string
	}{{hasType, "type"}, {hasProcess, "process"}, {hasF, "f"}} {
		if !req.ok {
			return nil, false, fieldErr(m, req.name, "missing")
		}
	}
	if value != nil {
		if err := ednValue(op, value); err != nil {
			return nil, false, err
		}
	}
	op.F = fromJepsenF(op)
	if op.F == FClientHang {
		if err := ednClientHang(op, m, value); err != nil {
			return nil, false, err
		}
	}
	if !hasRebalance && rebalanceLog != nil {
		op.Rebalance = rebalanceFromLog(rebalanceLog)
	}
	return op, hasIndex, nil
}

// ednClientHang checks a client-hang op's type and value, reporting the
// line of its value (of the op when it has none).
func ednClientHang(op *Op, m, value *ednVal) error {
	_, err := op.ClientHang()
	if err == nil {
		return nil
	}
	at := m
	if value != nil {
		at = value
	}
	fe := &fieldError{field: "value", msg: err.Error()}
	errors.As(err, &fe)
	return &ednError{pos: at.start, field: fe.field, msg: fe.msg}
}

// ednText is the text an :error or extra key keeps: a string's contents, or the EDN
// source of anything else.
func ednText(v *ednVal, src []byte) string {
	if v.kind == ednString {
		return v.s
	}
	return string(src[v.start:v.end])
}

func ednProcess(v *ednVal) (int64, error) {
	if n, ok := v.name(); ok && n == "nemesis" {
		return NemesisProcess, nil
	}
	if p := v.unwrap(); p.kind == ednInt && !p.big {
		return p.i, nil
	}
	return 0, fieldErr(v, "process", "expected an integer or :nemesis")
}

func ednType(v *ednVal) (Type, error) {
	n, ok := v.name()
	if t := Type(n); ok && t.Valid() {
		return t, nil
	}
	return "", fieldErr(v, "type", "unknown op type %s", v.describe())
}

// describe names a value for messages.
func (v *ednVal) describe() string {
	switch v.kind {
	case ednKeyword:
		return strconv.Quote(":" + v.s)
	case ednString, ednSymbol:
		return strconv.Quote(v.s)
	}
	return "of another kind"
}

// ednValue decodes :value into the field op.F calls for.
func ednValue(op *Op, v *ednVal) error {
	switch op.F {
	case FSend, FPoll, FTxn, FCommit:
		return ednMops(op, v)
	case FAssign, FSubscribe:
		keys, err := ednKeys(v, "value")
		op.Keys = keys
		return err
	}
	op.Value = appendEDNAsJSON(nil, v)
	return nil
}

// seqItems returns the items of a vector, list or set; nil is empty.
func seqItems(v *ednVal) ([]ednVal, bool) {
	v = v.unwrap()
	switch v.kind {
	case ednVector, ednList, ednSet:
		return v.items, true
	case ednNil:
		return nil, true
	}
	return nil, false
}

func ednKeys(v *ednVal, field string) ([]Key, error) {
	items, ok := seqItems(v)
	if !ok {
		return nil, fieldErr(v, field, "expected a vector of keys")
	}
	var keys []Key
	for i := range items {
		k, err := ednInteger(&items[i], field)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func ednMops(op *Op, v *ednVal) error {
	items, ok := seqItems(v)
	if !ok {
		return fieldErr(v, "value", "expected a vector of micro-ops")
	}
	for i := range items {
		m, err := ednMop(&items[i])
		if err != nil {
			return err
		}
		op.Mops = append(op.Mops, m)
	}
	return nil
}

// ednMop reads [:send k v], [:send k [offset v]], [:poll],
// [:poll {k [[offset v] ...]}] or [:commit {k offset}].
func ednMop(v *ednVal) (Mop, error) {
	parts, ok := seqItems(v)
	if !ok || len(parts) == 0 {
		return Mop{}, fieldErr(v, "value", "expected a micro-op vector")
	}
	f, _ := parts[0].name()
	m := Mop{Offset: NoOffset}
	var err error
	switch {
	case f == "send" && len(parts) == 3:
		m.F = MSend
		if m.Key, err = ednInteger(&parts[1], "value"); err != nil {
			return m, err
		}
		m.Offset, m.Value, err = ednSent(&parts[2])
	case f == "poll" && len(parts) <= 2:
		m.F = MPoll
		if len(parts) == 2 {
			m.Records, err = ednRecords(&parts[1])
		}
	case f == "commit" && len(parts) <= 2:
		m.F = MCommit
		if len(parts) == 2 {
			m.Offsets, err = ednOffsets(&parts[1])
		}
	default:
		return m, fieldErr(v, "value", "unknown or malformed micro-op")
	}
	return m, err
}

// ednSent reads a send's v or [offset v] (offset may be nil).
func ednSent(v *ednVal) (offset, value int64, err error) {
	pair, ok := seqItems(v)
	if !ok || v.unwrap().kind == ednNil {
		value, err = ednInteger(v, "value")
		return NoOffset, value, err
	}
	if len(pair) != 2 {
		return 0, 0, fieldErr(v, "value", "expected [offset value]")
	}
	if offset, err = ednOffset(&pair[0]); err != nil {
		return 0, 0, err
	}
	value, err = ednInteger(&pair[1], "value")
	return offset, value, err
}

// ednOffset reads an offset, nil meaning unknown.
func ednOffset(v *ednVal) (int64, error) {
	if v.unwrap().kind == ednNil {
		return NoOffset, nil
	}
	return ednInteger(v, "value")
}

// ednKey reads a map key: an integer, or a string holding one.
func ednKey(v *ednVal) (Key, error) {
	if s := v.unwrap(); s.kind == ednString {
		if k, err := strconv.ParseInt(s.s, 10, 64); err == nil {
			return k, nil
		}
	}
	return ednInteger(v, "value")
}

func ednRecords(v *ednVal) (map[Key][]Record, error) {
	m := v.unwrap()
	if m.kind == ednNil {
		return nil, nil
	}
	if m.kind != ednMap {
		return nil, fieldErr(v, "value", "poll results must be a map")
	}
	out := make(map[Key][]Record, len(m.items)/2)
	for i := 0; i < len(m.items); i += 2 {
		k, err := ednKey(&m.items[i])
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fieldErr(&m.items[i], "value", "key %d twice in poll results", k)
		}
		pairs, ok := seqItems(&m.items[i+1])
		if !ok {
			return nil, fieldErr(&m.items[i+1], "value", "expected [[offset value] ...]")
		}
		var recs []Record
		for j := range pairs {
			off, val, err := ednSent(&pairs[j])
			if err != nil {
				return nil, err
			}
			if !isPair(&pairs[j]) {
				return nil, fieldErr(&pairs[j], "value", "expected [offset value]")
			}
			recs = append(recs, Record{Offset: off, Value: val})
		}
		out[k] = recs
	}
	return out, nil
}

func isPair(v *ednVal) bool {
	k := v.unwrap().kind
	return k == ednVector || k == ednList
}

func ednOffsets(v *ednVal) (map[Key]int64, error) {
	m := v.unwrap()
	if m.kind == ednNil {
		return nil, nil
	}
	if m.kind != ednMap {
		return nil, fieldErr(v, "value", "commit offsets must be a map")
	}
	out := make(map[Key]int64, len(m.items)/2)
	for i := 0; i < len(m.items); i += 2 {
		k, err := ednKey(&m.items[i])
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fieldErr(&m.items[i], "value", "key %d twice in commit offsets", k)
		}
		if out[k], err = ednInteger(&m.items[i+1], "value"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func ednRebalance(v *ednVal) (*Rebalance, error) {
	m := v.unwrap()
	if m.kind == ednNil {
		return nil, nil // written by export to say: none, whatever the log says
	}
	if m.kind != ednMap {
		return nil, fieldErr(v, "rebalance", "expected a map")
	}
	r := &Rebalance{}
	for i := 0; i < len(m.items); i += 2 {
		name, _ := m.items[i].name()
		var err error
		switch name {
		case "revoked":
			r.Revoked, err = ednKeys(&m.items[i+1], "rebalance")
		case "assigned":
			r.Assigned, err = ednKeys(&m.items[i+1], "rebalance")
		default:
			err = fieldErr(&m.items[i], "rebalance", "unknown field")
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// rebalanceFromLog collects the keys of Jepsen's :rebalance-log, a vector
// of {:type :assigned|:revoked, :keys [...]} (some versions nest it under
// :before/:during, so every map with :keys anywhere inside counts). Keys
// not marked assigned count as revoked: the consumer's position in them
// cannot be trusted. Returns nil when the log names no keys.
func rebalanceFromLog(v *ednVal) *Rebalance {
	r := &Rebalance{}
	seen := map[[2]int64]bool{}
	var walk func(v *ednVal, depth int)
	walk = func(v *ednVal, depth int) {
		v = v.unwrap()
		if depth > maxDepth {
			return
		}
		if v.kind == ednMap {
			collectLogEntry(v, r, seen)
		}
		for i := range v.items {
			walk(&v.items[i], depth+1)
		}
	}
	walk(v, 0)
	if r.Revoked == nil && r.Assigned == nil {
		return nil
	}
	return r
}

func collectLogEntry(m *ednVal, r *Rebalance, seen map[[2]int64]bool) {
	var keys []Key
	assigned := false
	for i := 0; i+1 < len(m.items); i += 2 {
		switch name, _ := m.items[i].name(); name {
		case "keys":
			keys, _ = ednKeys(&m.items[i+1], "rebalance-log")
		case "type":
			t, _ := m.items[i+1].name()
			assigned = t == "assigned"
		}
	}
	for _, k := range keys {
		side := int64(0)
		if assigned {
			side = 1
		}
		if seen[[2]int64{side, k}] {
			continue
		}
		seen[[2]int64{side, k}] = true
		if assigned {
			r.Assigned = append(r.Assigned, k)
		} else {
			r.Revoked = append(r.Revoked, k)
		}
	}
}

// appendEDNAsJSON converts an EDN value to JSON: keywords, symbols and
// characters become strings, vectors, lists and sets arrays, maps objects
// (keys as their names or EDN text), tags are dropped, numbers that JSON
// cannot spell become strings.
func appendEDNAsJSON(dst []byte, v *ednVal) []byte {
	v = v.unwrap()
	switch v.kind {
	case ednNil:
		return append(dst, "null"...)
	case ednBool:
		return strconv.AppendBool(dst, v.b)
	case ednInt:
		if v.big {
			return append(dst, v.s...)
		}
		return strconv.AppendInt(dst, v.i, 10)
	case ednFloat:
		if validJSON([]byte(v.s)) == nil {
			return append(dst, v.s...)
		}
		return appendString(dst, v.s)
	case ednString, ednKeyword, ednSymbol, ednChar:
		return appendString(dst, v.s)
	case ednMap:
		dst = append(dst, '{')
		for i := 0; i < len(v.items); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, mapKeyName(&v.items[i]))
			dst = append(dst, ':')
			dst = appendEDNAsJSON(dst, &v.items[i+1])
		}
		return append(dst, '}')
	}
	dst = append(dst, '[')
	for i := range v.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendEDNAsJSON(dst, &v.items[i])
	}
	return append(dst, ']')
}

// mapKeyName is the JSON object key for an EDN map key.
func mapKeyName(k *ednVal) string {
	if n, ok := k.name(); ok {
		return n
	}
	return string(appendEDNAsJSON(nil, k))
}
