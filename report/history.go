package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// hop is the part of a history op the report needs. It is decoded here, not
// with the histories package's reader, so that a report can be drawn from
// any history whose lines follow the documented format.
type hop struct {
	Index   int64           `json:"index"`
	Time    int64           `json:"time"`
	Process int64           `json:"process"`
	Type    string          `json:"type"`
	F       string          `json:"f"`
	Value   json.RawMessage `json:"value"`
	Error   string          `json:"error"`
	mops    []hmop
}

// hmop is a micro-operation of a send, poll, txn or commit op.
type hmop struct {
	F       string               `json:"f"`
	Key     int64                `json:"key"`
	Value   int64                `json:"value"`
	Offset  *int64               `json:"offset"`
	Records map[string][][]int64 `json:"records"`
}

// hasMops reports whether an op with this f carries micro-operations.
func hasMops(f string) bool {
	return f == "send" || f == "poll" || f == "txn" || f == "commit"
}

// historyReader streams a history.jsonl, one op per call, with errors that
// name the file, the line and the field.
type historyReader struct {
	name string
	r    *bufio.Reader
	line int
	// Truncated is set when the last line was cut off (a crashed writer);
	// the ops before it are still good.
	Truncated bool
}

func newHistoryReader(name string, r io.Reader) *historyReader {
	return &historyReader{name: name, r: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next op and its raw line (valid until the next call), or
// io.EOF at the end.
func (h *historyReader) next() (*hop, []byte, error) {
	for {
		line, err := h.r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil, io.EOF
			}
			return nil, nil, fmt.Errorf("%s: line %d: %w", h.name, h.line+1, err)
		}
		h.line++
		complete := err == nil
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		op, perr := h.parse(line)
		if perr != nil {
			if !complete {
				// A last line without its newline is what a crash leaves.
				h.Truncated = true
				return nil, nil, io.EOF
			}
			return nil, nil, perr
		}
		return op, line, nil
	}
}

func (h *historyReader) parse(line []byte) (*hop, error) {
	var op hop
	if err := json.Unmarshal(line, &op); err != nil {
		return nil, h.fieldErr(err)
	}
	switch op.Type {
	case "invoke", "ok", "fail", "info":
	default:
		return nil, fmt.Errorf("%s: line %d: field type: %q is not invoke, ok, fail or info", h.name, h.line, op.Type)
	}
	if op.F == "" {
		return nil, fmt.Errorf("%s: line %d: field f: missing", h.name, h.line)
	}
	if hasMops(op.F) && len(op.Value) > 0 && op.Value[0] == '[' {
		if err := json.Unmarshal(op.Value, &op.mops); err != nil {
			return nil, h.fieldErr(err)
		}
	}
	return &op, nil
}

// fieldErr names the offending field when encoding/json knows it.
func (h *historyReader) fieldErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: line %d: field %s: %v", h.name, h.line, te.Field, err)
	}
	return fmt.Errorf("%s: line %d: %v", h.name, h.line, err)
}

// recordKey parses a records map key (JSON object keys are strings).
func recordKey(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
