package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// files lists the module's files but its Go source (code may build machine
// paths, e.g. a container's data directory), relative to root; runs/ and
// bin/ are a machine's own, not tracked.
func files(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" || rel == "runs" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == ".git" { // a worktree's pointer to its repository
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "README.md") {
		t.Fatalf("no README.md under %s: the layout changed", root)
	}
	return files
}

// documents are the Markdown files among files.
func documents(t *testing.T) []string {
	t.Helper()
	var docs []string
	for _, f := range files(t) {
		if strings.HasSuffix(f, ".md") {
			docs = append(docs, f)
		}
	}
	return docs
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// machinePath is an absolute path under a directory that differs from
// machine to machine, also after a JSON string's escaped tab or newline.
var machinePath = regexp.MustCompile(`(^|[\s"'(` + "`" + `=:]|\\[tn])/(tmp|work|root|home)/[^\s"` + "`" + `]*`)

func TestNoFileNamesAMachinePath(t *testing.T) {
	for _, f := range files(t) {
		text := read(t, f)
		if strings.ContainsRune(text, 0) {
			continue // binary
		}
		for i, line := range strings.Split(text, "\n") {
			if m := machinePath.FindString(line); m != "" {
				t.Errorf("%s:%d: names a machine path %q: cite a file of the repository instead", f, i+1, strings.TrimSpace(m))
			}
		}
	}
}

// link is a Markdown link's target, or a relative path in a code span.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)|` + "`" + `(\.\./[^` + "`" + `\s]*)`)

func TestNoLinkLeavesTheRepository(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range documents(t) {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(read(t, f), -1) {
			target, _, _ := strings.Cut(m[1]+m[2], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Join(abs, filepath.Dir(f), target)
			if filepath.IsAbs(target) || !strings.HasPrefix(p, abs+string(filepath.Separator)) {
				t.Errorf("%s: %q leaves the repository", f, m[0])
			}
		}
	}
}

// makeCall is `make TARGET` in a document's command lines: at the start of
// a line, in a code span, or after sudo's environment.
var makeCall = regexp.MustCompile(`(?m)(?:^|` + "`" + `|" )make ([a-z][a-z0-9-]*)`)

// target is a rule's name at the start of a Makefile line.
var target = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)

func TestDocumentedMakeTargetsExist(t *testing.T) {
	have := map[string]bool{}
	for _, m := range target.FindAllStringSubmatch(read(t, "Makefile"), -1) {
		have[m[1]] = true
	}
	for _, f := range []string{"README.md", filepath.Join("docs", "USAGE.md")} {
		for _, m := range makeCall.FindAllStringSubmatch(read(t, f), -1) {
			if !have[m[1]] {
				t.Errorf("%s shows `make %s`, which the Makefile does not define", f, m[1])
			}
		}
	}
}

// The README's test command is what CI runs: .ci/run's last make call.
func TestReadmeTestCommandIsWhatCIRuns(t *testing.T) {
	calls := makeCall.FindAllStringSubmatch(read(t, filepath.Join(".ci", "run")), -1)
	if len(calls) == 0 {
		t.Fatal(".ci/run calls no make target")
	}
	ci := "make " + calls[len(calls)-1][1]
	if !strings.Contains(read(t, "README.md"), "\n"+ci+" ") {
		t.Errorf("the README does not show %q, the command .ci/run runs, at the start of a line", ci)
	}
}
