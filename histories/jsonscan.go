package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// maxDepth bounds the nesting of JSON and EDN values, so that hostile input
// cannot exhaust the stack.
const maxDepth = 256

// jscan is a minimal JSON scanner over one line. It exists because
// encoding/json, driven by reflection, is several times slower than the
// history format needs (see BenchmarkDecode*). It validates what it skips, so
// raw values it copies are well-formed JSON.
type jscan struct {
	b []byte
	i int
}

var errEOL = errors.New("unexpected end of line")

// ws skips JSON whitespace.
func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *jscan) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// expect consumes byte c after optional whitespace.
func (s *jscan) expect(c byte) error {
	s.ws()
	if s.i >= len(s.b) {
		return errEOL
	}
	if s.b[s.i] != c {
		return s.errorf("expected %q, found %q", c, s.b[s.i])
	}
	s.i++
	return nil
}

// more is called inside an object or array after an element: it consumes a
// comma and reports true, or consumes the closing byte and reports false.
func (s *jscan) more(closing byte) (bool, error) {
	s.ws()
	if s.i >= len(s.b) {
		return false, errEOL
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, nil
	case closing:
		s.i++
		return false, nil
	}
	return false, s.errorf("expected ',' or %q, found %q", closing, s.b[s.i])
}

// open consumes the opening byte of an object or array and reports whether
// it is empty (in which case the closing byte is consumed too).
func (s *jscan) open(opening, closing byte) (empty bool, err error) {
	if err := s.expect(opening); err != nil {
		return false, err
	}
	if s.peek() == closing {
		s.i++
		return true, nil
	}
	return false, nil
}

// object reads {"name": value, ...}, calling field with each name once its
// colon is consumed, to read the value. It is the one loop every object of
// the format goes through; field's errors come back as they are.
func (s *jscan) object(field func(name []byte) error) error {
	empty, err := s.open('{', '}')
	if err != nil || empty {
		return err
	}
	for {
		name, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(name); err != nil {
			return err
		}
		more, err := s.more('}')
		if err != nil || !more {
			return err
		}
	}
}

// array reads [elem, ...], calling elem with each element's index to read
// it.
func (s *jscan) array(elem func(i int) error) error {
	empty, err := s.open('[', ']')
	if err != nil || empty {
		return err
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		more, err := s.more(']')
		if err != nil || !more {
			return err
		}
	}
}

// null consumes a JSON null if one is next.
func (s *jscan) null() bool {
	s.ws()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// str reads a JSON string. Without escapes it returns a slice of the line
// (valid until the line buffer is reused); with escapes it decodes through
// encoding/json, which is rare enough not to matter for speed.
func (s *jscan) str() ([]byte, error) {
	s.ws()
	if s.i >= len(s.b) {
		return nil, errEOL
	}
	if s.b[s.i] != '"' {
		return nil, s.errorf("expected a string, found %q", s.b[s.i])
	}
	start := s.i + 1
	end := bytes.IndexByte(s.b[start:], '"')
	if end < 0 {
		s.i = len(s.b)
		return nil, errEOL
	}
	seg := s.b[start : start+end]
	if bytes.IndexByte(seg, '\\') >= 0 {
		return s.escapedStr(start - 1)
	}
	for _, c := range seg {
		if c < 0x20 {
			return nil, s.errorf("control character in string")
		}
	}
	s.i = start + end + 1
	return seg, nil
}

// escapedStr reads a string with escapes starting at the quote at start.
func (s *jscan) escapedStr(start int) ([]byte, error) {
	s.i = start + 1
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			var out string
			if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
				return nil, s.errorf("bad string escape")
			}
			return []byte(out), nil
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return nil, s.errorf("control character in string")
		default:
			s.i++
		}
	}
	s.i = len(s.b)
	return nil, errEOL
}

// int reads a JSON integer that fits in int64.
func (s *jscan) int() (int64, error) {
	s.ws()
	start := s.i
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	var n uint64
	digits := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c < '0' || c > '9' {
			break
		}
		if n > (math.MaxInt64+1)/10 {
			return 0, s.errorf("integer overflows int64")
		}
		n = n*10 + uint64(c-'0')
		digits++
		s.i++
	}
	if digits == 0 {
		s.i = start
		if s.i >= len(s.b) {
			return 0, errEOL
		}
		return 0, s.errorf("expected an integer, found %q", s.b[s.i])
	}
	if s.i < len(s.b) {
		if c := s.b[s.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, s.errorf("expected an integer, found a fraction")
		}
	}
	if digits > 1 && s.b[start] == '0' || digits > 1 && neg && s.b[start+1] == '0' {
		return 0, s.errorf("integer with leading zero")
	}
	if neg {
		if n > math.MaxInt64+1 {
			return 0, s.errorf("integer overflows int64")
		}
		return -int64(n), nil
	}
	if n > math.MaxInt64 {
		return 0, s.errorf("integer overflows int64")
	}
	return int64(n), nil
}

// intOrNull reads an integer or null (as NoOffset).
func (s *jscan) intOrNull() (int64, error) {
	if s.null() {
		return NoOffset, nil
	}
	return s.int()
}

// skip validates and skips one JSON value of any kind.
func (s *jscan) skip(depth int) error {
	if depth > maxDepth {
		return s.errorf("nesting deeper than %d", maxDepth)
	}
	switch s.peek() {
	case 0:
		return errEOL
	case '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		return s.array(func(int) error { return s.skip(depth + 1) })
	case '"':
		_, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

func (s *jscan) literal(word string) error {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return nil
	}
	return s.errorf("invalid literal")
}

// number validates a JSON number: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (s *jscan) number() error {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.errorf("invalid value")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	return nil
}

func (s *jscan) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// rawValue validates one value and returns a copy of its bytes, so it
// survives the reuse of the line buffer.
func (s *jscan) rawValue() (json.RawMessage, error) {
	s.ws()
	start := s.i
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), s.b[start:s.i]...), nil
}

// scanError is an error at a byte column of the line.
type scanError struct {
	col int
	msg string
}

func (e *scanError) Error() string { return e.msg }

func (s *jscan) errorf(format string, args ...any) error {
	return &scanError{col: s.i + 1, msg: fmt.Sprintf(format, args...)}
}
