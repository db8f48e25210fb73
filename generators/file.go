package generators

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileName is the scenario's name inside a run directory.
const FileName = "scenario.json"

// Save writes s as indented JSON to path (a file, or a directory to write
// scenario.json into), through a temporary file so that a crash leaves
// either the old file or the new one.
func Save(path string, s Scenario) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, FileName)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("scenario %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("scenario %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("scenario %s: %w", path, err)
	}
	return nil
}

// Load reads a scenario from path (a file, or a run directory), rejecting
// unknown fields, and validates it. Errors name the file, and the line or
// field.
func Load(path string) (Scenario, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, FileName)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, err
	}
	s, err := Parse(b)
	if err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse decodes and validates a scenario.
func Parse(b []byte) (Scenario, error) {
	var s Scenario
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, jsonError(b, dec, err)
	}
	if err := s.Validate(); err != nil {
		return Scenario{}, err
	}
	return s, nil
}

// jsonError adds the line (and field, where it can be found) to a decode
// error.
func jsonError(b []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %w", lineAt(b, se.Offset), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("line %d: field %s: %w", lineAt(b, te.Offset), te.Field, err)
	}
	var de *durationError
	if errors.As(err, &de) {
		if at := bytes.Index(b, []byte(strconv.Quote(de.text))); at >= 0 {
			return fmt.Errorf("line %d: field %s: %w", lineAt(b, int64(at)), keyBefore(b, at), err)
		}
	}
	// encoding/json reports an unknown field by name only.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if at := bytes.Index(b, []byte(name+":")); at >= 0 {
			return fmt.Errorf("line %d: %w", lineAt(b, int64(at)), err)
		}
	}
	return fmt.Errorf("line %d: %w", lineAt(b, dec.InputOffset()), err)
}

// keyBefore is the object key nearest before offset at, for errors that
// know a bad value but not its field.
func keyBefore(b []byte, at int) string {
	colon := bytes.LastIndexByte(b[:at], ':')
	if colon < 0 {
		return "?"
	}
	end := bytes.LastIndexByte(b[:colon], '"')
	start := bytes.LastIndexByte(b[:max(end, 0)], '"')
	if start < 0 || end <= start {
		return "?"
	}
	return string(b[start+1 : end])
}

func lineAt(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return 1 + bytes.Count(b[:off], []byte{'\n'})
}
