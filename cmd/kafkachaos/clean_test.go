package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// With no Docker engine answering there are no containers of ours to
// remove: clean says so and succeeds.
func TestCleanWithoutDockerEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
	var out, errb bytes.Buffer
	if code := cleanCmd(nil, &out, &errb); code != exitValid {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "docker: no engine answers, nothing to clean there") {
		t.Errorf("stdout %q does not say the engine was absent", out.String())
	}
	if !strings.Contains(out.String(), "leftovers removed") {
		t.Errorf("stdout %q has no summary", out.String())
	}
}
