package histories

import (
	"fmt"
	"strconv"
)

// ParseError is bad input in a history: it names the file, the line (1-based)
// and, when known, the field at fault.
type ParseError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *ParseError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", loc, e.Field, e.Msg)
	}
	return loc + ": " + e.Msg
}

// Warning is a problem in a history that did not stop reading it, such as a
// last line cut off by a crash.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
}

// fieldError is a decoding error that knows its field but not yet its file
// and line; readers wrap it into a ParseError.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %q: %s", e.field, e.msg) }

// inField attaches a field name to err unless it already names one.
func inField(field string, err error) error {
	if err == nil {
		return nil
	}
	switch e := err.(type) {
	case *fieldError:
		return err
	case *scanError:
		if e.col > 0 {
			return &fieldError{field: field, msg: fmt.Sprintf("column %d: %s", e.col, e.msg)}
		}
	}
	return &fieldError{field: field, msg: err.Error()}
}
