package testsummary

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Result is how a test or package ended. Unfinished is a test that started
// and never reported an end: its package timed out or crashed.
type Result string

const (
	Pass       Result = "pass"
	Fail       Result = "fail"
	Skip       Result = "skip"
	Unfinished Result = "unfinished"
)

// Run is one go test invocation.
type Run struct {
	Name     string
	Packages []Package
	Tests    []Test
}

// Package is one package's end. NoTests marks "[no test files]".
type Package struct {
	Name    string
	Result  Result
	Elapsed float64
	NoTests bool
	// Output is the package's own output (not a test's): for a package that
	// failed without a failing test, the build error or the panic.
	Output []string
}

// Test is one test or subtest's end; Message is its skip (or failure)
// message without the file:line prefix.
type Test struct {
	Package string
	Name    string
	Result  Result
	Elapsed float64
	Message string
}

// event is one line of cmd/test2json's output.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

type testKey struct{ pkg, test string }

// Read parses one `go test -json` stream. A line that is not a JSON event
// is an error naming the run and the line.
func Read(name string, r io.Reader) (Run, error) {
	run := Run{Name: name}
	b := newBuilder()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return Run{}, fmt.Errorf("%s line %d: not a go test -json event: %v", name, line, err)
		}
		if ev.Action == "" {
			return Run{}, fmt.Errorf("%s line %d: event without an Action field", name, line)
		}
		b.add(ev)
	}
	if err := sc.Err(); err != nil {
		return Run{}, fmt.Errorf("%s: %v", name, err)
	}
	run.Packages, run.Tests = b.results()
	return run, nil
}

// builder folds events into results, keeping first-seen order.
type builder struct {
	pkgOrder  []string
	pkgs      map[string]*Package
	testOrder []testKey
	tests     map[testKey]*Test
	output    map[testKey][]string
	// build holds compiler output by ImportPath ("p [p.test]") until the
	// package's fail event names it in FailedBuild.
	build map[string][]string
}

func newBuilder() *builder {
	return &builder{pkgs: map[string]*Package{}, tests: map[testKey]*Test{}, output: map[testKey][]string{}, build: map[string][]string{}}
}

func (b *builder) add(ev event) {
	switch {
	case ev.Action == "build-output":
		b.build[ev.ImportPath] = append(b.build[ev.ImportPath], strings.TrimRight(ev.Output, "\n"))
	case ev.Package == "":
		return
	case ev.Test == "":
		b.addPackage(ev)
	default:
		b.addTest(ev)
	}
}

func (b *builder) pkg(name string) *Package {
	if p, ok := b.pkgs[name]; ok {
		return p
	}
	p := &Package{Name: name}
	b.pkgs[name] = p
	b.pkgOrder = append(b.pkgOrder, name)
	return p
}

func (b *builder) addPackage(ev event) {
	p := b.pkg(ev.Package)
	switch ev.Action {
	case "output":
		line := strings.TrimRight(ev.Output, "\n")
		if strings.Contains(line, "[no test files]") {
			p.NoTests = true
		}
		p.Output = append(p.Output, line)
	case "pass", "fail", "skip":
		p.Result, p.Elapsed = Result(ev.Action), ev.Elapsed
		if ev.FailedBuild != "" {
			p.Output = append(b.build[ev.FailedBuild], p.Output...)
		}
	}
}

func (b *builder) addTest(ev event) {
	k := testKey{ev.Package, ev.Test}
	t, ok := b.tests[k]
	if !ok {
		t = &Test{Package: ev.Package, Name: ev.Test, Result: Unfinished}
		b.tests[k] = t
		b.testOrder = append(b.testOrder, k)
	}
	switch ev.Action {
	case "output":
		b.output[k] = append(b.output[k], strings.TrimRight(ev.Output, "\n"))
	case "pass", "fail", "skip":
		t.Result, t.Elapsed = Result(ev.Action), ev.Elapsed
		if t.Result != Pass {
			t.Message = message(b.output[k])
		}
	}
}

func (b *builder) results() ([]Package, []Test) {
	pkgs := make([]Package, 0, len(b.pkgOrder))
	for _, name := range b.pkgOrder {
		p := b.pkgs[name]
		if p.Result == "" {
			p.Result = Unfinished
		}
		pkgs = append(pkgs, *p)
	}
	tests := make([]Test, 0, len(b.testOrder))
	for _, k := range b.testOrder {
		t := b.tests[k]
		if t.Result == Unfinished {
			t.Message = unfinished(b.output[k])
		}
		tests = append(tests, *t)
	}
	return pkgs, tests
}

// logLine is a t.Log/t.Skip line: indented "file.go:12: text".
var logLine = regexp.MustCompile(`^\s+[\w.\-/]+\.go:\d+: (.*)$`)

// message is the last logged message of a test's output (the t.Skip or
// t.Fatal text, with its more deeply indented continuation lines), without
// the framework's === and --- lines; the last other line when nothing was
// logged.
func message(lines []string) string {
	var last []string
	indent := -1
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		depth := len(line) - len(strings.TrimLeft(line, " \t"))
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "=== ") || strings.HasPrefix(trimmed, "--- "):
		case logLine.MatchString(line):
			last, indent = []string{logLine.FindStringSubmatch(line)[1]}, depth
		case indent >= 0 && depth > indent:
			last = append(last, trimmed)
		default:
			last, indent = []string{trimmed}, -1
		}
	}
	return strings.Join(last, " ")
}

// unfinished explains a test that never ended: the panic (a timeout names
// itself "panic: test timed out after ..."), else its last message.
func unfinished(lines []string) string {
	for _, line := range lines {
		if strings.HasPrefix(line, "panic: ") {
			return line
		}
	}
	return message(lines)
}
