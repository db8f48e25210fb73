package ciworkflows

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

const workflowDir = "../../.github/workflows"

// lint runs actionlint on files; shellcheck and pyflakes are off (empty
// executables), so run: scripts are checked for expressions only.
func lint(t *testing.T, files ...string) []*actionlint.Error {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatalf("actionlint on %v: %v", files, err)
	}
	return errs
}

func workflows(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(workflowDir, "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if strings.Join(names, " ") != "explore.yml nightly.yml pr.yml" {
		t.Fatalf("workflows in %s = %v, want explore.yml, nightly.yml and pr.yml", workflowDir, names)
	}
	return files
}

func TestWorkflowsPassActionlint(t *testing.T) {
	for _, e := range lint(t, workflows(t)...) {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

// TestActionlintRejectsABrokenWorkflow shows the check above can fail: a
// job without runs-on, an unknown context and a malformed cron are each
// reported.
func TestActionlintRejectsABrokenWorkflow(t *testing.T) {
	broken := `name: broken
on:
  schedule:
    - cron: "61 * * * *"
jobs:
  test:
    steps:
      - run: echo "${{ github.no_such_field }}"
`
	path := filepath.Join(t.TempDir(), "broken.yml")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range lint(t, path) {
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`"runs-on" section is missing`, "no_such_field", "invalid CRON format"} {
		if !strings.Contains(all, want) {
			t.Errorf("actionlint errors lack %q:\n%s", want, all)
		}
	}
}

// makeCall is a make invocation in a run: step, e.g. `make matrix CLUSTER=local`.
var makeCall = regexp.MustCompile(`\bmake ([a-z][a-z0-9-]*)`)

func TestWorkflowsCallExistingMakeTargets(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	called := 0
	for _, f := range workflows(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range makeCall.FindAllStringSubmatch(string(text), -1) {
			called++
			target := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`)
			if !target.Match(makefile) {
				t.Errorf("%s calls make %s, which the Makefile does not define", filepath.Base(f), m[1])
			}
		}
	}
	if called == 0 {
		t.Fatal("found no make calls in the workflows: the pattern no longer matches them")
	}
}
