package histories

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Reader streams ops from a JSONL history. It checks every line as it goes:
// the JSON shape, the op type, the micro-ops, and that indexes increase. A
// Recorder numbers densely from 0, so the first gap is a warning (a filtered
// or imported Jepsen history has gaps; a recorded one only if lines were
// lost). A last line that is cut off (no newline and unparsable, as a crash
// mid-write leaves it) ends the history with a warning; any other bad line
// is a *ParseError naming the file, line and field.
type Reader struct {
	br       *bufio.Reader
	name     string
	line     int   // number of the last line read, 1-based
	prev     int64 // index of the previous op, -1 before the first
	gap      bool  // a gap in the indexes was warned about
	long     []byte
	fresh    *decoder // for Next: ops own their memory
	warnings []Warning
	err      error // sticky: io.EOF or the first error
}

// NewReader reads a JSONL history from r; name (usually the file name) is
// used in errors and warnings.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), name: name, prev: -1}
}

// Warnings returns what was tolerated so far (e.g. a cut-off last line).
func (r *Reader) Warnings() []Warning { return r.warnings }

// Next returns the next op, or io.EOF after the last one. The op is the
// caller's to keep.
func (r *Reader) Next() (*Op, error) {
	if r.fresh == nil {
		r.fresh = newDecoder(ownFresh)
	}
	op := new(Op)
	if err := r.read(op, r.fresh); err != nil {
		return nil, err
	}
	return op, nil
}

// Scan calls fn with every op in order until the end, the first bad line or
// the first error from fn, which it returns (nil at the end).
//
// For speed, lines are decoded in parallel (jsonl_blocks.go), and an op's
// slices and maps are reused once fn has returned: fn must copy (Op.Clone)
// anything it keeps beyond the call.
func (r *Reader) Scan(fn func(*Op) error) error {
	if r.err != nil {
		if r.err == io.EOF {
			return nil
		}
		return r.err
	}
	return r.scanBlocks(fn)
}

// read decodes the next non-blank line into op.
func (r *Reader) read(op *Op, d *decoder) error {
	if r.err != nil {
		return r.err
	}
	for {
		line, whole, err := r.readLine()
		if err != nil {
			r.err = err
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if derr := d.decode(line, op); derr != nil {
			if !whole {
				r.warnings = append(r.warnings, Warning{File: r.name, Line: r.line,
					Msg: fmt.Sprintf("last line is cut off (%d bytes, no newline) and was ignored: %v", len(line), derr)})
				r.err = io.EOF
				return io.EOF
			}
			r.err = r.parseError(derr)
			return r.err
		}
		r.err = r.number(op.Index)
		return r.err
	}
}

// number checks that index follows the previous op's and warns once about
// the first gap.
func (r *Reader) number(index int64) error {
	if index <= r.prev {
		return &ParseError{File: r.name, Line: r.line, Field: "index", Msg: indexOrder(index, r.prev)}
	}
	if index != r.prev+1 && !r.gap {
		r.gap = true
		r.warnings = append(r.warnings, Warning{File: r.name, Line: r.line,
			Msg: fmt.Sprintf("op indexes are not dense from 0: %d after %d (a filtered or imported history; later gaps are not reported)", index, r.prev)})
	}
	r.prev = index
	return nil
}

// readLine returns the next line without its newline, and whether it had
// one. Lines of any length are returned whole.
func (r *Reader) readLine() (line []byte, whole bool, err error) {
	r.line++
	line, err = r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	switch {
	case err == nil:
		return line[:len(line)-1], true, nil
	case errors.Is(err, io.EOF) && len(line) > 0:
		return line, false, nil
	}
	return nil, false, err
}

func (r *Reader) parseError(err error) *ParseError {
	return parseErrorAt(r.name, r.line, err)
}

// parseErrorAt names the field or column of a decoding error.
func parseErrorAt(name string, line int, err error) *ParseError {
	pe := &ParseError{File: name, Line: line}
	var fe *fieldError
	var se *scanError
	switch {
	case errors.As(err, &fe):
		pe.Field, pe.Msg = fe.field, fe.msg
	case errors.As(err, &se):
		pe.Msg = fmt.Sprintf("column %d: %s", se.col, se.msg)
	default:
		pe.Msg = err.Error()
	}
	return pe
}
