package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadHistoryLineNamesFileLineAndField(t *testing.T) {
	for name, tc := range map[string]struct{ history, want string }{
		"bad type":   {`{"index":0,"time":1,"process":0,"type":"done","f":"send"}` + "\n", HistoryFile + `:1: field "type"`},
		"bad field":  {`{"index":0,"time":1,"process":0,"type":"ok","f":"send"}` + "\n" + `{"index":"x","time":1,"process":0,"type":"ok","f":"send"}` + "\n", HistoryFile + `:2: field "index"`},
		"bad syntax": {`{"index":0,` + "\n" + `{}` + "\n", HistoryFile + ":1:"},
		"missing f":  {`{"index":0,"time":1,"process":0,"type":"ok"}` + "\n", HistoryFile + `:1: field "f"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(tc.history), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Write(dir, Options{})
			if err == nil || !strings.Contains(err.Error(), HistoryFile) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v does not name %s and %q", err, HistoryFile, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
				t.Error("a partial index.html was written")
			}
		})
	}
}

func TestTruncatedLastLineIsAWarning(t *testing.T) {
	dir := t.TempDir()
	h := `{"index":0,"time":1,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":2}]}` + "\n" + `{"index":1,"ti`
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Render(&b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "last line is cut off") || !strings.Contains(b.String(), "NOT CHECKED") {
		t.Error("truncated history not reported as a warning on an unchecked page")
	}
}

func TestBadResultsNamesLineAndField(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte("{\n\"valid\": \"yes\"\n}"), 0o644)
	err := Write(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "results.json: line 2: field valid") {
		t.Fatalf("got %v", err)
	}
}

func TestNotARunDirectory(t *testing.T) {
	err := Write(t.TempDir(), Options{})
	if err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Fatalf("got %v", err)
	}
}

func TestFaultWindowsPairStartsWithHeals(t *testing.T) {
	nem := []bar{
		{F: "kill", Start: 10, End: 11, Op: 1, Invoke: 0},
		{F: "partition", Start: 20, End: 21, Op: 3, Invoke: 2},
		{F: "restart", Start: 30, End: 31, Op: 5, Invoke: 4},
		{F: "clock-skew-start", Start: 40, End: 41},
		{F: "heal", Start: 50, End: 52},
		{F: "delay", Start: 60, End: 61},
		{F: "shuffle-leaders", Start: 65, End: 65},
		{F: "delay-heal", Start: 70, End: 72},
	}
	w := faultWindows(nem, 100, nil)
	want := []window{{10, 31, "kill", false}, {20, 52, "partition", false}, {40, 100, "clock-skew-start", true},
		{60, 72, "delay", false}}
	if len(w) != len(want) {
		t.Fatalf("windows %v, want %v", w, want)
	}
	for i := range want {
		if w[i] != want[i] {
			t.Errorf("window %d = %v, want %v", i, w[i], want[i])
		}
	}
}
