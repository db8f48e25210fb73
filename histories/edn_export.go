package histories

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendEDN appends op as one Jepsen op map (without a newline), the
// inverse of EDNReader: reading what AppendEDN wrote gives op back. A
// nemesis op whose value names its fault is written under Jepsen's name for
// what it does (:kill and :start for a kill, :start-partition, ...; see
// FaultOf); import gives it back in this package's convention, so an op
// recorded under an older name comes back under the current one.
//
// Sends of invoke ops without an offset are [:send k v]; every other send
// is [:send k [offset v]] with nil for an unknown offset. Error and Extra
// texts that are one whole non-string EDN value are written verbatim (that
// is how EDN import keeps them); other texts become EDN strings. Extra
// values that are not JSON strings (from a JSONL history) are converted to
// EDN, and come back from import as EDN text.
func AppendEDN(dst []byte, op *Op) ([]byte, error) {
	if !op.Type.Valid() {
		return dst, fmt.Errorf("op %d: unknown op type %q", op.Index, op.Type)
	}
	dst = append(dst, "{:index "...)
	dst = strconv.AppendInt(dst, op.Index, 10)
	dst = append(dst, ", :time "...)
	dst = strconv.AppendInt(dst, op.Time, 10)
	dst = append(dst, ", :process "...)
	if op.Process == NemesisProcess {
		dst = append(dst, ":nemesis"...)
	} else {
		dst = strconv.AppendInt(dst, op.Process, 10)
	}
	dst = append(dst, ", :type :"...)
	dst = append(dst, op.Type...)
	dst = append(dst, ", :f "...)
	dst = appendEDNName(dst, jepsenF(op))
	var err error
	if dst, err = appendEDNValue(dst, op); err != nil {
		return dst, fmt.Errorf("op %d: %w", op.Index, err)
	}
	if op.Group != "" {
		dst = append(dst, ", :group "...)
		dst = appendEDNString(dst, op.Group)
	}
	dst = appendEDNRebalance(dst, op)
	if op.Error != "" {
		dst = append(dst, ", :error "...)
		dst = appendEDNText(dst, op.Error)
	}
	if dst, err = appendEDNExtra(dst, op); err != nil {
		return dst, fmt.Errorf("op %d: %w", op.Index, err)
	}
	return append(dst, '}'), nil
}

// logRebalance returns what import derives from op's :rebalance-log.
func logRebalance(op *Op) *Rebalance {
	raw, ok := op.Extra["rebalance-log"]
	if !ok {
		return nil
	}
	text, ok := jsonString(raw)
	if !ok {
		return nil
	}
	p := ednParser{b: []byte(text)}
	v, err := p.value(0)
	if err != nil {
		return nil
	}
	return rebalanceFromLog(&v)
}

func sameRebalance(a, b *Rebalance) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Revoked, b.Revoked) && (a.Revoked == nil) == (b.Revoked == nil) &&
		slices.Equal(a.Assigned, b.Assigned) && (a.Assigned == nil) == (b.Assigned == nil)
}

func appendEDNValue(dst []byte, op *Op) ([]byte, error) {
	switch op.F {
	case FSend, FPoll, FTxn, FCommit:
		dst = append(dst, ", :value ["...)
		for i := range op.Mops {
			if i > 0 {
				dst = append(dst, ' ')
			}
			var err error
			if dst, err = appendEDNMop(dst, &op.Mops[i], op.Type); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case FAssign, FSubscribe:
		dst = append(dst, ", :value "...)
		return appendKeys(dst, op.Keys, ' '), nil
	}
	if op.Value == nil {
		return dst, nil
	}
	dst = append(dst, ", :value "...)
	return appendJSONAsEDN(dst, op.Value)
}

func appendEDNMop(dst []byte, m *Mop, t Type) ([]byte, error) {
	switch m.F {
	case MSend:
		dst = append(dst, "[:send "...)
		dst = strconv.AppendInt(dst, m.Key, 10)
		dst = append(dst, ' ')
		if t == Invoke && m.Offset == NoOffset {
			dst = strconv.AppendInt(dst, m.Value, 10)
		} else {
			dst = appendEDNPair(dst, m.Offset, m.Value)
		}
	case MPoll:
		dst = append(dst, "[:poll"...)
		if m.Records != nil {
			var buf [16]Key
			dst = append(dst, " {"...)
			for i, k := range sortedKeys(m.Records, buf[:]) {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = strconv.AppendInt(dst, k, 10)
				dst = append(dst, " ["...)
				for j, r := range m.Records[k] {
					if j > 0 {
						dst = append(dst, ' ')
					}
					dst = appendEDNPair(dst, r.Offset, r.Value)
				}
				dst = append(dst, ']')
			}
			dst = append(dst, '}')
		}
	case MCommit:
		dst = append(dst, "[:commit"...)
		if m.Offsets != nil {
			var buf [16]Key
			dst = append(dst, " {"...)
			for i, k := range sortedKeys(m.Offsets, buf[:]) {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = strconv.AppendInt(dst, k, 10)
				dst = append(dst, ' ')
				dst = strconv.AppendInt(dst, m.Offsets[k], 10)
			}
			dst = append(dst, '}')
		}
	default:
		return dst, fmt.Errorf("unknown micro-op %q", m.F)
	}
	return append(dst, ']'), nil
}

// appendEDNPair writes [offset value], nil standing for an unknown offset.
func appendEDNPair(dst []byte, offset, value int64) []byte {
	dst = append(dst, '[')
	if offset == NoOffset {
		dst = append(dst, "nil"...)
	} else {
		dst = strconv.AppendInt(dst, offset, 10)
	}
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, value, 10)
	return append(dst, ']')
}

// appendEDNRebalance writes :rebalance unless import would derive the same
// from :rebalance-log; nil when the log would give something else.
func appendEDNRebalance(dst []byte, op *Op) []byte {
	r := op.Rebalance
	if sameRebalance(r, logRebalance(op)) {
		return dst
	}
	if r == nil {
		return append(dst, ", :rebalance nil"...)
	}
	dst = append(dst, ", :rebalance {"...)
	dst = appendRebalanceFields(dst, r, spelling{revoked: ":revoked ", assigned: ":assigned ", fieldSep: ", ", keySep: ' '})
	return append(dst, '}')
}

func appendEDNExtra(dst []byte, op *Op) ([]byte, error) {
	if len(op.Extra) == 0 {
		return dst, nil
	}
	names := make([]string, 0, len(op.Extra))
	for name := range op.Extra {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if knownField(name) {
			return dst, fmt.Errorf("extra field %q shadows a known field", name)
		}
		dst = append(dst, ", "...)
		dst = appendEDNKeyword(dst, name)
		dst = append(dst, ' ')
		raw := op.Extra[name]
		if text, ok := jsonString(raw); ok {
			dst = appendEDNText(dst, text)
			continue
		}
		var err error
		if dst, err = appendJSONAsEDN(dst, raw); err != nil {
			return dst, fmt.Errorf("extra field %q: %w", name, err)
		}
	}
	return dst, nil
}

// jsonString decodes raw if it is a JSON string.
func jsonString(raw []byte) (string, bool) {
	s := jscan{b: raw}
	if s.peek() != '"' {
		return "", false
	}
	b, err := s.str()
	if err != nil || s.peek() != 0 {
		return "", false
	}
	return string(b), true
}

// appendEDNText writes text verbatim if it is exactly one non-string EDN
// value (so import reads back the same text), else as an EDN string.
func appendEDNText(dst []byte, text string) []byte {
	p := ednParser{b: []byte(text)}
	if v, err := p.value(0); err == nil && v.start == 0 && v.end == len(text) && v.kind != ednString {
		return append(dst, text...)
	}
	return appendEDNString(dst, text)
}

// appendEDNName writes a name as a keyword when it can be one, else a string.
func appendEDNName(dst []byte, name string) []byte {
	if isKeywordName(name) {
		return append(append(dst, ':'), name...)
	}
	return appendEDNString(dst, name)
}

// appendEDNKeyword writes a map key: a keyword when possible.
func appendEDNKeyword(dst []byte, name string) []byte { return appendEDNName(dst, name) }

// isKeywordName reports whether :name reads back as a keyword named name.
func isKeywordName(name string) bool {
	if name == "" || name[0] == '/' || name[len(name)-1] == '/' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && !(c < utf8.RuneSelf && isSymbolStart(c) && c != ':' && c != '\'') {
			return false
		}
	}
	return true
}

// appendEDNString writes s as an EDN string literal.
func appendEDNString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// appendJSONAsEDN converts one JSON value to EDN: objects become maps with
// keyword keys where possible, arrays vectors, null nil.
func appendJSONAsEDN(dst []byte, raw []byte) ([]byte, error) {
	s := jscan{b: raw}
	dst, err := jsonToEDN(dst, &s, 0)
	if err == nil && s.peek() != 0 {
		err = s.errorf("trailing data after the value")
	}
	return dst, err
}

func jsonToEDN(dst []byte, s *jscan, depth int) ([]byte, error) {
	if depth > maxDepth {
		return dst, s.errorf("nesting deeper than %d", maxDepth)
	}
	switch s.peek() {
	case '{':
		return jsonObjectToEDN(dst, s, depth)
	case '[':
		empty, err := s.open('[', ']')
		dst = append(dst, '[')
		for i := 0; err == nil && !empty; i++ {
			if i > 0 {
				dst = append(dst, ' ')
			}
			if dst, err = jsonToEDN(dst, s, depth+1); err == nil {
				empty, err = s.more(']')
				empty = !empty
			}
		}
		return append(dst, ']'), err
	case '"':
		b, err := s.str()
		return appendEDNString(dst, string(b)), err
	case 'n':
		return append(dst, "nil"...), s.literal("null")
	}
	start := s.i
	if err := s.skip(depth); err != nil {
		return dst, err
	}
	return append(dst, s.b[start:s.i]...), nil // true, false and numbers read the same
}

func jsonObjectToEDN(dst []byte, s *jscan, depth int) ([]byte, error) {
	empty, err := s.open('{', '}')
	dst = append(dst, '{')
	for i := 0; err == nil && !empty; i++ {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		var key []byte
		if key, err = s.str(); err != nil {
			break
		}
		dst = appendEDNName(dst, string(key))
		dst = append(dst, ' ')
		if err = s.expect(':'); err != nil {
			break
		}
		if dst, err = jsonToEDN(dst, s, depth+1); err == nil {
			var more bool
			more, err = s.more('}')
			empty = !more
		}
	}
	return append(dst, '}'), err
}

// ExportEDN writes every op of src to w as EDN, one op map per line.
func ExportEDN(w io.Writer, src Source) error {
	bw := bufio.NewWriter(w)
	var line []byte
	err := src.Scan(func(op *Op) error {
		var err error
		if line, err = AppendEDN(line[:0], op); err != nil {
			return err
		}
		line = append(line, '\n')
		_, err = bw.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// ExportJSONL writes every op of src to w as JSONL (e.g. after EDN import).
func ExportJSONL(w io.Writer, src Source) error {
	hw := &Writer{bw: bufio.NewWriterSize(w, writerBufSize)}
	if err := src.Scan(hw.Append); err != nil {
		return err
	}
	return hw.Flush()
}
