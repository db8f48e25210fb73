package histories

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ednKind is the kind of an EDN value.
type ednKind uint8

const (
	ednNil ednKind = iota
	ednBool
	ednInt
	ednFloat
	ednString
	ednKeyword
	ednSymbol
	ednChar
	ednVector
	ednList
	ednSet
	ednMap
	ednTagged
)

// ednVal is a parsed EDN value. Tagged literals keep their tag in s and the
// tagged value as their only item; maps keep keys and values alternating in
// items, in source order. start and end delimit its source text.
type ednVal struct {
	kind       ednKind
	b          bool
	i          int64
	s          string // string contents, keyword/symbol name without ':', number text, tag
	big        bool   // an integer that does not fit int64 (text in s)
	items      []ednVal
	start, end int
}

// unwrap strips tagged literals (#jepsen.history.Op{...} is just a map).
func (v *ednVal) unwrap() *ednVal {
	for v.kind == ednTagged {
		v = &v.items[0]
	}
	return v
}

// ednParser reads EDN from a byte slice.
//
// A collection's items go to a stack while it is read and then into a slab
// that reclaim empties: the values of one op are converted before the next
// is read, so one op's worth of memory serves the whole history. Keyword
// and symbol names are interned.
type ednParser struct {
	b     []byte
	i     int
	stack []ednVal
	slab  []ednVal
	names map[string]string
}

// reclaim reuses the memory of every value read so far.
func (p *ednParser) reclaim() { p.slab = p.slab[:0] }

// name returns b as a string, shared with earlier identical names; the
// keywords of every op need no lookup.
func (p *ednParser) name(b []byte) string {
	switch string(b) {
	case ":index":
		return ":index"
	case ":time":
		return ":time"
	case ":process":
		return ":process"
	case ":type":
		return ":type"
	case ":f":
		return ":f"
	case ":value":
		return ":value"
	case ":invoke":
		return ":invoke"
	case ":ok":
		return ":ok"
	case ":send":
		return ":send"
	case ":poll":
		return ":poll"
	}
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.names == nil {
		p.names = map[string]string{}
	}
	if len(p.names) < 4096 {
		p.names[s] = s
	}
	return s
}

// ednError is a syntax or shape error at a byte offset of the input.
type ednError struct {
	pos   int
	field string
	msg   string
	eof   bool // the input ended inside the value: it may be cut off
}

func (e *ednError) Error() string { return e.msg }

// eofError reports input that ended inside a value opened at pos.
func (p *ednParser) eofError(pos int, what string) error {
	return &ednError{pos: pos, msg: what, eof: true}
}

func (p *ednParser) errorf(pos int, format string, args ...any) error {
	return &ednError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// ws skips whitespace, commas, comments and #_ discarded forms.
func (p *ednParser) ws(depth int) error {
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f':
			p.i++
		case c == ';':
			if j := bytes.IndexByte(p.b[p.i:], '\n'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.b)
			}
		case c == '#' && p.i+1 < len(p.b) && p.b[p.i+1] == '_':
			p.i += 2
			if _, err := p.value(depth + 1); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// atEnd skips whitespace and reports whether the input is exhausted.
func (p *ednParser) atEnd() (bool, error) {
	if err := p.ws(0); err != nil {
		return false, err
	}
	return p.i >= len(p.b), nil
}

// value reads one EDN value.
func (p *ednParser) value(depth int) (ednVal, error) {
	if depth > maxDepth {
		return ednVal{}, p.errorf(p.i, "nesting deeper than %d", maxDepth)
	}
	if err := p.ws(depth); err != nil {
		return ednVal{}, err
	}
	if p.i >= len(p.b) {
		return ednVal{}, p.eofError(p.i, "unexpected end of input")
	}
	start := p.i
	v, err := p.value1(depth)
	v.start, v.end = start, p.i
	return v, err
}

func (p *ednParser) value1(depth int) (ednVal, error) {
	c := p.b[p.i]
	switch {
	case c == '[':
		p.i++
		return p.seq(ednVector, ']', depth)
	case c == '(':
		p.i++
		return p.seq(ednList, ')', depth)
	case c == '{':
		open := p.i
		p.i++
		v, err := p.seq(ednMap, '}', depth)
		if err == nil && len(v.items)%2 != 0 {
			return v, p.errorf(open, "map with an odd number of forms")
		}
		return v, err
	case c == '#':
		return p.dispatch(depth)
	case c == '"':
		s, err := p.str()
		return ednVal{kind: ednString, s: s}, err
	case c == '\\':
		return p.char()
	case c == ']' || c == ')' || c == '}':
		return ednVal{}, p.errorf(p.i, "unexpected %q", c)
	case c >= '0' && c <= '9' || (c == '-' || c == '+') && p.i+1 < len(p.b) && p.b[p.i+1] >= '0' && p.b[p.i+1] <= '9':
		return p.number()
	}
	return p.symbol()
}

// seq reads the forms of a collection up to its closing byte.
func (p *ednParser) seq(kind ednKind, closing byte, depth int) (ednVal, error) {
	v := ednVal{kind: kind}
	open := p.i - 1
	mark := len(p.stack)
	defer func() { p.stack = p.stack[:mark] }()
	for {
		if err := p.ws(depth + 1); err != nil {
			return v, err
		}
		if p.i >= len(p.b) {
			return v, p.eofError(open, "unclosed collection")
		}
		if p.b[p.i] == closing {
			p.i++
			if n := len(p.stack) - mark; n > 0 {
				p.slab = append(p.slab, p.stack[mark:]...)
				v.items = p.slab[len(p.slab)-n : len(p.slab) : len(p.slab)]
			}
			return v, nil
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		p.stack = append(p.stack, item)
	}
}

// dispatch reads what follows '#': a set or a tagged literal.
func (p *ednParser) dispatch(depth int) (ednVal, error) {
	start := p.i
	p.i++
	if p.i < len(p.b) && p.b[p.i] == '{' {
		p.i++
		return p.seq(ednSet, '}', depth)
	}
	tag := p.token()
	if tag == "" || !isSymbolStart(tag[0]) {
		return ednVal{}, p.errorf(start, "bad dispatch '#'")
	}
	inner, err := p.value(depth + 1)
	if err != nil {
		return ednVal{}, err
	}
	return ednVal{kind: ednTagged, s: tag, items: []ednVal{inner}}, nil
}

func isSymbolStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf ||
		strings.IndexByte(".*+!-_?$%&=<>/:'", c) >= 0
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', ',', '(', ')', '[', ']', '{', '}', '"', ';':
		return true
	}
	return false
}

// token reads bytes up to the next delimiter.
func (p *ednParser) token() string { return string(p.tokenBytes()) }

func (p *ednParser) tokenBytes() []byte {
	start := p.i
	for p.i < len(p.b) && !isDelimiter(p.b[p.i]) {
		p.i++
	}
	return p.b[start:p.i]
}

func (p *ednParser) symbol() (ednVal, error) {
	start := p.i
	t := p.name(p.tokenBytes())
	switch {
	case t == "":
		return ednVal{}, p.errorf(start, "unexpected %q", p.b[start])
	case t == "nil":
		return ednVal{kind: ednNil}, nil
	case t == "true" || t == "false":
		return ednVal{kind: ednBool, b: t == "true"}, nil
	case t[0] == ':':
		if len(t) == 1 {
			return ednVal{}, p.errorf(start, "empty keyword")
		}
		return ednVal{kind: ednKeyword, s: t[1:]}, nil
	case !isSymbolStart(t[0]):
		return ednVal{}, p.errorf(start, "unexpected %q", t[0])
	}
	return ednVal{kind: ednSymbol, s: t}, nil
}

func (p *ednParser) number() (ednVal, error) {
	start := p.i
	if n, ok := p.plainInt(); ok {
		return ednVal{kind: ednInt, i: n}, nil
	}
	p.i = start
	t := p.token()
	if strings.ContainsAny(t, ".eE") || strings.HasSuffix(t, "M") || strings.Contains(t, "/") {
		if _, err := strconv.ParseFloat(strings.TrimSuffix(t, "M"), 64); err != nil && !strings.Contains(t, "/") {
			return ednVal{}, p.errorf(start, "bad number %q", t)
		}
		return ednVal{kind: ednFloat, s: t}, nil
	}
	digits := strings.TrimSuffix(t, "N")
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return ednVal{kind: ednInt, big: true, s: strings.TrimPrefix(digits, "+")}, nil
		}
		return ednVal{}, p.errorf(start, "bad number %q", t)
	}
	return ednVal{kind: ednInt, i: n, s: t}, nil
}

// plainInt reads an integer of at most 18 digits, the common case, without
// building its text; ok is false for any other number.
func (p *ednParser) plainInt() (int64, bool) {
	b := p.tokenBytes()
	neg := len(b) > 0 && b[0] == '-'
	if neg || len(b) > 0 && b[0] == '+' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (p *ednParser) str() (string, error) {
	start := p.i
	p.i++
	var sb []byte
	from := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			p.i++
			if sb == nil {
				return string(p.b[from : p.i-1]), nil
			}
			return string(append(sb, p.b[from:p.i-1]...)), nil
		}
		if c != '\\' {
			p.i++
			continue
		}
		sb = append(sb, p.b[from:p.i]...)
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case 'n':
			sb = append(sb, '\n')
		case 't':
			sb = append(sb, '\t')
		case 'r':
			sb = append(sb, '\r')
		case 'b':
			sb = append(sb, '\b')
		case 'f':
			sb = append(sb, '\f')
		case '"', '\\', '/':
			sb = append(sb, e)
		case 'u':
			if p.i+4 > len(p.b) {
				return "", p.errorf(p.i-2, "bad \\u escape")
			}
			r, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
			if err != nil {
				return "", p.errorf(p.i-2, "bad \\u escape")
			}
			sb = utf8.AppendRune(sb, rune(r))
			p.i += 4
		default:
			return "", p.errorf(p.i-2, "bad string escape \\%c", e)
		}
		from = p.i
	}
	return "", p.eofError(start, "unterminated string")
}

// namedChar returns the character a \name literal stands for.
func namedChar(name string) (string, bool) {
	switch name {
	case "newline":
		return "\n", true
	case "space":
		return " ", true
	case "tab":
		return "\t", true
	case "return":
		return "\r", true
	case "backspace":
		return "\b", true
	case "formfeed":
		return "\f", true
	}
	return "", false
}

func (p *ednParser) char() (ednVal, error) {
	start := p.i
	p.i++
	if p.i >= len(p.b) {
		return ednVal{}, p.errorf(start, "bad character literal")
	}
	// A character is one rune, possibly itself a delimiter, or a name.
	_, size := utf8.DecodeRune(p.b[p.i:])
	first := string(p.b[p.i : p.i+size])
	p.i += size
	rest := p.token()
	if rest == "" {
		return ednVal{kind: ednChar, s: first}, nil
	}
	name := first + rest
	if c, ok := namedChar(name); ok {
		return ednVal{kind: ednChar, s: c}, nil
	}
	if name[0] == 'u' && len(name) == 5 {
		if r, err := strconv.ParseUint(name[1:], 16, 32); err == nil {
			return ednVal{kind: ednChar, s: string(rune(r))}, nil
		}
	}
	return ednVal{}, p.errorf(start, "bad character literal \\%s", name)
}

// lineOf returns the 1-based line of byte offset pos.
func lineOf(b []byte, pos int) int {
	if pos > len(b) {
		pos = len(b)
	}
	return bytes.Count(b[:pos], []byte{'\n'}) + 1
}
