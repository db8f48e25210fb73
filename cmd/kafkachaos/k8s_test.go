package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// k8sScenario is the k8s package's fixture: five cluster faults, a pause
// Chaos Mesh cannot play and a consumer crash the harness plays.
var k8sScenario = filepath.Join("..", "..", "k8s", "testdata", "scenario.json")

// render -o writes the harness, the Workflow and the notes, and names the
// fault it could not render on stderr.
func TestK8sRenderWritesTheObjectsAndNamesWhatItCannotRender(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := cli(t, "k8s", "render", "--scenario", k8sScenario, "--namespace", "streams", "--shards", "2", "-o", dir)
	if code != exitValid || !strings.Contains(out, "harness.yaml, chaos.yaml, NOTES.md") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if !strings.Contains(errs, "not rendered: f6-pause (pause): freezes") {
		t.Errorf("stderr does not name the pause it could not render: %q", errs)
	}
	for file, want := range map[string]string{
		"harness.yaml": "kafkachaos explore --shard $((JOB_COMPLETION_INDEX+1))/2",
		"chaos.yaml":   "namespace: streams",
		"NOTES.md":     "| f6-pause | pause | not rendered |",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s (%v) does not say %q:\n%s", file, err, want, b)
		}
	}
}

// Without -o the YAML goes to stdout and the notes to stderr.
func TestK8sRenderPrintsWithoutADirectory(t *testing.T) {
	code, out, errs := cli(t, "k8s", "render", "--scenario", k8sScenario, "--kafka-selector", "app=kafka")
	if code != exitValid || !strings.Contains(out, "kind: Job") || !strings.Contains(out, "---\napiVersion: chaos-mesh.org/v1alpha1") ||
		!strings.Contains(out, "app: kafka") || !strings.Contains(errs, "| f1-kill | kill | chaos |") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// Bad input exits 2 with an error naming the flag, or the file and field.
func TestK8sRenderRefusesBadInput(t *testing.T) {
	bad := write(t, "scenario.json", "{\n  \"name\": \"x\",\n  \"seed\": \"one\"\n}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"k8s"}, "usage: kafkachaos k8s render"},
		{[]string{"k8s", "draw"}, "usage: kafkachaos k8s render"},
		{[]string{"k8s", "render"}, "--scenario FILE is required"},
		{[]string{"k8s", "render", "--scenario", bad}, bad + ": line 3: field seed"},
		{[]string{"k8s", "render", "--scenario", k8sScenario, "--bootstrap", "kafka:9092"}, "--bootstrap: bootstrap \"kafka:9092\": not a Strimzi"},
		{[]string{"k8s", "render", "--scenario", k8sScenario, "--kafka-selector", "app"}, "--kafka-selector: label 1"},
		{[]string{"k8s", "render", "--scenario", k8sScenario, "--shards", "-2"}, "shards -2"},
	} {
		code, _, errs := cli(t, tc.args...)
		if code != exitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d saying %q", tc.args, code, errs, exitError, tc.want)
		}
	}
}
