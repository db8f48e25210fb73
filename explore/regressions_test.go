package explore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
)

func validRegression(t *testing.T) Regression {
	t.Helper()
	s, err := Draw(GenSpace("embedded"), SpaceWeak, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Replay = "kafkachaos run --scenario /somewhere/scenario.json"
	return NewRegression("exactly-once", s, Verdict{Expected: "exactly-once", Observed: "at-least-once",
		Anomalies: []string{"duplicate"}}, 3)
}

func TestRegressionSavesAndLoads(t *testing.T) {
	dir := t.TempDir()
	r := validRegression(t)
	path, err := SaveRegression(dir, "dup", r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadRegression(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Scenario.Replay != "" {
		t.Errorf("replay %q saved: a run directory's path means nothing in testdata", got.Scenario.Replay)
	}
	gb, _ := json.Marshal(got)
	rb, _ := json.Marshal(r)
	if string(gb) != string(rb) {
		t.Errorf("loaded\n%s\nwant\n%s", gb, rb)
	}
	all, err := LoadRegressions(dir)
	if err != nil || len(all) != 1 || all["dup"].Attempts != 3 {
		t.Errorf("LoadRegressions: %v, %v", all, err)
	}
}

// A bad file's error names the file and the field.
func TestRegressionLoadNamesFileAndField(t *testing.T) {
	r := validRegression(t)
	good, _ := json.MarshalIndent(r, "", "  ")
	for _, tc := range []struct{ name, from, to, field string }{
		{"claim", `"claim": "exactly-once"`, `"claim": "mostly"`, "field claim"},
		{"violated", `"violated": "exactly-once"`, `"violated": "never"`, "field violated"},
		{"attempts", `"attempts": 3`, `"attempts": 0`, "field attempts"},
		{"anomalies", `"anomalies": [
    "duplicate"
  ]`, `"anomalies": []`, "field anomalies"},
		{"scenario", `"time-limit": "`, `"time-limit": "x`, "field scenario"},
		{"unknown", `"claim"`, `"surprise": 1, "claim"`, "surprise"},
		{"type", `"attempts": 3`, `"attempts": "three"`, "attempts"},
	} {
		b := strings.Replace(string(good), tc.from, tc.to, 1)
		if b == string(good) {
			t.Fatalf("%s: %q not in the saved file", tc.name, tc.from)
		}
		path := filepath.Join(t.TempDir(), tc.name+".json")
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRegression(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %v, want one naming %s and %q", tc.name, err, path, tc.field)
		}
	}
}

func TestSaveRegressionRefusesAPathAsName(t *testing.T) {
	if _, err := SaveRegression(t.TempDir(), "../up", validRegression(t)); err == nil {
		t.Error("saved under ../up")
	}
}

// Replay takes up to Attempts runs and needs every pinned anomaly kind.
func TestReplayNeedsThePinnedAnomaliesWithinAttempts(t *testing.T) {
	r := validRegression(t)
	for _, tc := range []struct {
		name   string
		shows  []Verdict // per attempt
		wantOK bool
		runs   int
	}{
		{"third attempt", []Verdict{{}, {}, {Violated: true, Anomalies: []string{"duplicate", "lost-write"}}}, true, 3},
		{"other anomaly", []Verdict{{Violated: true, Anomalies: []string{"lost-write"}}, {}, {}}, false, 3},
		{"after attempts", []Verdict{{}, {}, {}, {Violated: true, Anomalies: []string{"duplicate"}}}, false, 3},
	} {
		runs := 0
		_, err := Replay(context.Background(), r, func(context.Context, generators.Scenario) (Verdict, error) {
			runs++
			return tc.shows[runs-1], nil
		})
		if (err == nil) != tc.wantOK || runs != tc.runs {
			t.Errorf("%s: error %v after %d runs; want ok %v after %d", tc.name, err, runs, tc.wantOK, tc.runs)
		}
	}
}
