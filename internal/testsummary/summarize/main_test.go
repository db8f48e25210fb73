package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExitStatus(t *testing.T) {
	pass := write(t, "unit.json", `{"Action":"run","Package":"m","Test":"TestA"}`+"\n"+`{"Action":"pass","Package":"m","Test":"TestA"}`+"\n"+`{"Action":"pass","Package":"m"}`+"\n")
	fail := write(t, "local.json", `{"Action":"run","Package":"m","Test":"TestB"}`+"\n"+`{"Action":"fail","Package":"m","Test":"TestB"}`+"\n"+`{"Action":"fail","Package":"m"}`+"\n")
	bad := write(t, "docker.json", "not json\n")
	cases := []struct {
		args   []string
		status int
		out    string
	}{
		{[]string{pass}, 0, "result: PASS; nothing skipped"},
		{[]string{"-trim", "m", pass, fail}, 1, "local: . TestB (fail)"},
		{[]string{"-markdown", pass}, 0, "| unit | 1 | 0 | 0 | 1 | 0 | 0 |"},
		{[]string{pass, bad}, 2, "docker line 1: not a go test -json event"},
		{nil, 2, "no go test -json files given"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		status := run(c.args, &stdout, &stderr)
		if status != c.status || !strings.Contains(stdout.String()+stderr.String(), c.out) {
			t.Errorf("run(%q) = %d, output:\n%s%s\nwant %d and %q", c.args, status, stdout.String(), stderr.String(), c.status, c.out)
		}
	}
}
