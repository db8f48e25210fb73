package histories

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends op as one JSON object (without a newline) to dst, in
// the history format of DESIGN.md. Map keys are written in sorted order, so
// equal ops give equal bytes. It fails on ops the reader would reject:
// an unknown type or micro-op, invalid raw JSON in Value or Extra, or an
// Extra field that shadows a known one.
func AppendJSON(dst []byte, op *Op) ([]byte, error) {
	if !op.Type.Valid() {
		return dst, fmt.Errorf("op %d: unknown op type %q", op.Index, op.Type)
	}
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, op.Index, 10)
	dst = append(dst, `,"time":`...)
	dst = strconv.AppendInt(dst, op.Time, 10)
	dst = append(dst, `,"process":`...)
	dst = strconv.AppendInt(dst, op.Process, 10)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, op.Type...)
	dst = append(dst, `","f":`...)
	dst = appendString(dst, op.F)
	var err error
	if dst, err = appendValue(dst, op); err != nil {
		return dst, fmt.Errorf("op %d: %w", op.Index, err)
	}
	if op.Group != "" {
		dst = append(dst, `,"group":`...)
		dst = appendString(dst, op.Group)
	}
	if op.Rebalance != nil {
		dst = appendRebalance(dst, op.Rebalance)
	}
	if op.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = appendString(dst, op.Error)
	}
	if dst, err = appendExtra(dst, op.Extra); err != nil {
		return dst, fmt.Errorf("op %d: %w", op.Index, err)
	}
	return append(dst, '}'), nil
}

// appendValue writes the "value" field in the shape op.F calls for.
func appendValue(dst []byte, op *Op) ([]byte, error) {
	switch op.F {
	case FSend, FPoll, FTxn, FCommit:
		dst = append(dst, `,"value":[`...)
		for i := range op.Mops {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendMop(dst, &op.Mops[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case FAssign, FSubscribe:
		dst = append(dst, `,"value":`...)
		return appendKeys(dst, op.Keys, ','), nil
	}
	if op.Value == nil {
		return dst, nil
	}
	if err := validJSON(op.Value); err != nil {
		return dst, fmt.Errorf("value: %w", err)
	}
	dst = append(dst, `,"value":`...)
	return append(dst, op.Value...), nil
}

func appendMop(dst []byte, m *Mop) ([]byte, error) {
	switch m.F {
	case MSend:
		dst = append(dst, `{"f":"send","key":`...)
		dst = strconv.AppendInt(dst, m.Key, 10)
		dst = append(dst, `,"value":`...)
		dst = strconv.AppendInt(dst, m.Value, 10)
		if m.Offset != NoOffset {
			dst = append(dst, `,"offset":`...)
			dst = strconv.AppendInt(dst, m.Offset, 10)
		}
	case MPoll:
		dst = append(dst, `{"f":"poll"`...)
		if m.Records != nil {
			dst = append(dst, `,"records":`...)
			dst = appendRecords(dst, m.Records)
		}
	case MCommit:
		dst = append(dst, `{"f":"commit"`...)
		if m.Offsets != nil {
			dst = append(dst, `,"offsets":`...)
			dst = appendOffsets(dst, m.Offsets)
		}
	default:
		return dst, fmt.Errorf("unknown micro-op %q", m.F)
	}
	return append(dst, '}'), nil
}

// sortedKeys returns the keys of m in increasing order, in buf if it fits.
func sortedKeys[V any](m map[Key]V, buf []Key) []Key {
	ks := buf[:0]
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func appendRecords(dst []byte, recs map[Key][]Record) []byte {
	var buf [16]Key
	dst = append(dst, '{')
	for i, k := range sortedKeys(recs, buf[:]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, k, 10)
		dst = append(dst, `":[`...)
		for j, r := range recs[k] {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			dst = strconv.AppendInt(dst, r.Offset, 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, r.Value, 10)
			dst = append(dst, ']')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendOffsets(dst []byte, offs map[Key]int64) []byte {
	var buf [16]Key
	dst = append(dst, '{')
	for i, k := range sortedKeys(offs, buf[:]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, k, 10)
		dst = append(dst, `":`...)
		dst = strconv.AppendInt(dst, offs[k], 10)
	}
	return append(dst, '}')
}

// appendKeys writes a list of keys, sep between them (JSON's comma,
// EDN's space).
func appendKeys(dst []byte, keys []Key, sep byte) []byte {
	dst = append(dst, '[')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, sep)
		}
		dst = strconv.AppendInt(dst, k, 10)
	}
	return append(dst, ']')
}

// spelling is how a format writes a rebalance's fields.
type spelling struct {
	revoked, assigned string // each field's name and what follows it
	fieldSep          string // between the two fields
	keySep            byte   // between keys (appendKeys)
}

// appendRebalanceFields writes r's revoked and assigned keys, each where
// it is known, between the braces the caller writes.
func appendRebalanceFields(dst []byte, r *Rebalance, sp spelling) []byte {
	if r.Revoked != nil {
		dst = append(dst, sp.revoked...)
		dst = appendKeys(dst, r.Revoked, sp.keySep)
	}
	if r.Assigned != nil {
		if r.Revoked != nil {
			dst = append(dst, sp.fieldSep...)
		}
		dst = append(dst, sp.assigned...)
		dst = appendKeys(dst, r.Assigned, sp.keySep)
	}
	return dst
}

func appendRebalance(dst []byte, r *Rebalance) []byte {
	dst = append(dst, `,"rebalance":{`...)
	dst = appendRebalanceFields(dst, r, spelling{revoked: `"revoked":`, assigned: `"assigned":`, fieldSep: ",", keySep: ','})
	return append(dst, '}')
}

// knownFields are the top-level fields an Extra entry must not shadow.
func knownField(name string) bool {
	switch name {
	case "index", "time", "process", "type", "f", "value", "group", "rebalance", "error":
		return true
	}
	return false
}

func appendExtra(dst []byte, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		return dst, nil
	}
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if knownField(name) {
			return dst, fmt.Errorf("extra field %q shadows a known field", name)
		}
		if err := validJSON(extra[name]); err != nil {
			return dst, fmt.Errorf("extra field %q: %w", name, err)
		}
		dst = append(dst, ',')
		dst = appendString(dst, name)
		dst = append(dst, ':')
		dst = append(dst, extra[name]...)
	}
	return dst, nil
}

// validJSON checks that raw is exactly one JSON value.
func validJSON(raw []byte) error {
	s := jscan{b: raw}
	if err := s.skip(0); err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.errorf("trailing data after the value")
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// with encoding/json.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
