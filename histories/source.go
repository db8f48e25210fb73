package histories

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Source is a history that can be scanned more than once without being held
// in memory, so checkers can make several streaming passes.
type Source interface {
	// Name identifies the history in messages (usually its path).
	Name() string
	// Scan calls fn with every op in index order. As with Reader.Scan, the
	// *Op may be reused between calls: copy what you keep.
	Scan(fn func(*Op) error) error
	// Warnings returns what the last Scan tolerated (e.g. a cut-off last line).
	Warnings() []Warning
}

// Format is a history file format.
type Format int

const (
	// FormatAuto picks the format from the file extension (.edn, .jsonl,
	// .json, .ndjson) or, failing that, from the first bytes.
	FormatAuto Format = iota
	// FormatJSONL is this project's history.jsonl.
	FormatJSONL
	// FormatEDN is a Jepsen history.edn.
	FormatEDN
)

func (f Format) String() string {
	switch f {
	case FormatJSONL:
		return "jsonl"
	case FormatEDN:
		return "edn"
	}
	return "auto"
}

// ParseFormat reads a format name as given on a command line.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FormatAuto, nil
	case "jsonl", "json", "ndjson":
		return FormatJSONL, nil
	case "edn":
		return FormatEDN, nil
	}
	return FormatAuto, fmt.Errorf("unknown history format %q (want jsonl, edn or auto)", s)
}

// fileSource reopens its file on every Scan.
type fileSource struct {
	path     string
	format   Format
	warnings []Warning
}

// Open returns a Source reading the history file at path in the given
// format (FormatAuto to detect it). The file is opened once here, to report
// a missing file early, and again on every Scan.
func Open(path string, format Format) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if format == FormatAuto {
		format = detect(path, bufio.NewReader(f))
	}
	return &fileSource{path: path, format: format}, nil
}

// detect guesses the format: a JSONL line starts with `{"`, anything else
// (a vector of ops, `{:index`, a tagged literal) is EDN.
func detect(path string, br *bufio.Reader) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".edn":
		return FormatEDN
	case ".jsonl", ".json", ".ndjson":
		return FormatJSONL
	}
	head, _ := br.Peek(4096)
	s := strings.TrimLeft(string(head), " \t\r\n")
	if strings.HasPrefix(s, "{") && strings.HasPrefix(strings.TrimLeft(s[1:], " \t\r\n"), `"`) {
		return FormatJSONL
	}
	if s == "" {
		return FormatJSONL
	}
	return FormatEDN
}

func (s *fileSource) Name() string        { return s.path }
func (s *fileSource) Warnings() []Warning { return s.warnings }

func (s *fileSource) Scan(fn func(*Op) error) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if s.format == FormatEDN {
		er := NewEDNReader(f, s.path)
		err = er.Scan(fn)
		s.warnings = er.Warnings()
		return err
	}
	r := NewReader(f, s.path)
	err = r.Scan(fn)
	s.warnings = r.Warnings()
	return err
}

// FromOps is a Source over ops in memory, for tests. Scan hands out
// pointers into ops; callers must not modify them.
func FromOps(ops []Op) Source { return sliceSource(ops) }

type sliceSource []Op

func (sliceSource) Name() string        { return "ops" }
func (sliceSource) Warnings() []Warning { return nil }

func (s sliceSource) Scan(fn func(*Op) error) error {
	for i := range s {
		if err := fn(&s[i]); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile reads a whole history into memory; format as for Open. Meant
// for small histories and tests: checkers should stream a Source instead.
func ReadFile(path string, format Format) ([]Op, []Warning, error) {
	src, err := Open(path, format)
	if err != nil {
		return nil, nil, err
	}
	var ops []Op
	err = src.Scan(func(op *Op) error {
		ops = append(ops, *op.Clone())
		return nil
	})
	return ops, src.Warnings(), err
}
