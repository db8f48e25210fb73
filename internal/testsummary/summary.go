package testsummary

import (
	"fmt"
	"io"
	"strings"
)

// Summary is what several go test invocations did, for a person at the end
// of make test or on a CI job page.
type Summary struct {
	Runs []Run
	// Trim is a package path prefix (the module path) dropped when naming
	// packages; the package equal to it prints as ".".
	Trim string
}

// Counts are one run's totals.
type Counts struct {
	PackagesPassed, PackagesFailed, PackagesWithoutTests int
	Passed, Failed, Skipped                              int
}

// SkipGroup is every test of one run that skipped with the same message.
type SkipGroup struct {
	Run, Message string
	Tests        []string // "package TestName", in the order they ran
}

// Counts totals one run: a package or test that never finished counts as
// failed.
func (r Run) Counts() Counts {
	var c Counts
	for _, p := range r.Packages {
		switch {
		case p.Result == Pass:
			c.PackagesPassed++
		case p.Result == Skip || p.NoTests:
			c.PackagesWithoutTests++
		default:
			c.PackagesFailed++
		}
	}
	for _, t := range r.Tests {
		switch t.Result {
		case Pass:
			c.Passed++
		case Skip:
			c.Skipped++
		default:
			c.Failed++
		}
	}
	return c
}

// Failed reports whether any run had a failed or unfinished package or test.
func (s Summary) Failed() bool {
	return len(s.Failures()) > 0
}

// Failures names each failed test, and each failed package that has no
// failed test of its own (a build error, a timeout, a crash in TestMain)
// with the last line of its output.
func (s Summary) Failures() []string {
	var out []string
	for _, r := range s.Runs {
		withFailedTest := map[string]bool{}
		for _, t := range r.Tests {
			if t.Result == Fail || t.Result == Unfinished {
				withFailedTest[t.Package] = true
				out = append(out, fmt.Sprintf("%s: %s %s (%s)%s", r.Name, s.short(t.Package), t.Name, t.Result, suffix(t.Message)))
			}
		}
		for _, p := range r.Packages {
			if (p.Result == Fail || p.Result == Unfinished) && !withFailedTest[p.Name] {
				out = append(out, fmt.Sprintf("%s: %s (package %s)%s", r.Name, s.short(p.Name), p.Result, suffix(lastLine(p.Output))))
			}
		}
	}
	return out
}

// Skips groups every skipped test by run and message, in the order the
// messages first appeared.
func (s Summary) Skips() []SkipGroup {
	var groups []SkipGroup
	index := map[[2]string]int{}
	for _, r := range s.Runs {
		for _, t := range r.Tests {
			if t.Result != Skip {
				continue
			}
			k := [2]string{r.Name, t.Message}
			i, ok := index[k]
			if !ok {
				i = len(groups)
				index[k] = i
				groups = append(groups, SkipGroup{Run: r.Name, Message: t.Message})
			}
			groups[i].Tests = append(groups[i].Tests, s.short(t.Package)+" "+t.Name)
		}
	}
	return groups
}

// WriteText prints the summary for a terminal: one line per run, the
// failures, the skips with their reasons, and a last line with the verdict.
func (s Summary) WriteText(w io.Writer) error {
	p := &printer{w: w}
	p.line("=== test summary (%d go test runs)", len(s.Runs))
	for _, r := range s.Runs {
		c := r.Counts()
		p.line("%-8s packages: %d passed, %d failed, %d without tests; tests: %d passed, %d failed, %d skipped",
			r.Name, c.PackagesPassed, c.PackagesFailed, c.PackagesWithoutTests, c.Passed, c.Failed, c.Skipped)
	}
	failures, skips := s.Failures(), s.Skips()
	if len(failures) > 0 {
		p.line("FAILED (%d):", len(failures))
		for _, f := range failures {
			p.line("  %s", f)
		}
	}
	if len(skips) > 0 {
		p.line("SKIPPED: %s did not run, for %s:", plural(skipped(skips), "test"), plural(len(skips), "reason"))
		for _, g := range skips {
			p.line("  %s, %s: %s", g.Run, plural(len(g.Tests), "test"), orNone(g.Message))
			p.line("      %s", strings.Join(g.Tests, ", "))
		}
	}
	p.line("%s", s.verdict(failures, skips))
	return p.err
}

// WriteMarkdown prints the same summary for a CI job page.
func (s Summary) WriteMarkdown(w io.Writer) error {
	p := &printer{w: w}
	p.line("### Tests\n")
	p.line("| run | packages passed | failed | without tests | tests passed | failed | skipped |")
	p.line("|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range s.Runs {
		c := r.Counts()
		p.line("| %s | %d | %d | %d | %d | %d | %d |", r.Name, c.PackagesPassed, c.PackagesFailed,
			c.PackagesWithoutTests, c.Passed, c.Failed, c.Skipped)
	}
	failures, skips := s.Failures(), s.Skips()
	if len(failures) > 0 {
		p.line("\n**Failed (%d)**\n", len(failures))
		for _, f := range failures {
			p.line("- %s", mdEscape.Replace(f))
		}
	}
	if len(skips) > 0 {
		p.line("\n**Skipped: %s did not run**\n", plural(skipped(skips), "test"))
		for _, g := range skips {
			p.line("- %s, %s: %s: `%s`", g.Run, plural(len(g.Tests), "test"), mdEscape.Replace(orNone(g.Message)),
				strings.Join(g.Tests, "`, `"))
		}
	}
	p.line("\n%s", s.verdict(failures, skips))
	return p.err
}

func (s Summary) verdict(failures []string, skips []SkipGroup) string {
	result := "PASS"
	if len(failures) > 0 {
		result = fmt.Sprintf("FAIL (%d failed)", len(failures))
	}
	if n := skipped(skips); n > 0 {
		return fmt.Sprintf("result: %s; %s skipped (reasons above)", result, plural(n, "test"))
	}
	return "result: " + result + "; nothing skipped"
}

func (s Summary) short(pkg string) string {
	switch {
	case s.Trim == "":
		return pkg
	case pkg == s.Trim:
		return "."
	case strings.HasPrefix(pkg, s.Trim+"/"):
		return pkg[len(s.Trim)+1:]
	}
	return pkg
}

// mdEscape keeps messages literal on a job page: "<runs>" is not a tag.
var mdEscape = strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", "\\*", "_", "\\_", "`", "\\`")

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func skipped(groups []SkipGroup) int {
	n := 0
	for _, g := range groups {
		n += len(g.Tests)
	}
	return n
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func orNone(msg string) string {
	if msg == "" {
		return "(no message)"
	}
	return msg
}

func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && l != "FAIL" && !strings.HasPrefix(l, "FAIL\t") && !strings.HasPrefix(l, "exit status") {
			return l
		}
	}
	return ""
}

// printer keeps the first write error so the writers read as prose.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}
