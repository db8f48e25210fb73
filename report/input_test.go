package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
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

// Windows pair starts with heals, whether recorded under the older names
// (kill/restart, partition/heal, x/x-heal) or the convention's, which give
// the same windows.
func TestFaultWindowsPairStartsWithHeals(t *testing.T) {
	type ev struct {
		old, kind  string
		edge       histories.Edge
		start, end int64
	}
	evs := []ev{
		{"kill", "kill", histories.EdgeStart, 10, 11},
		{"partition", "partition", histories.EdgeStart, 20, 21},
		{"restart", "kill", histories.EdgeStop, 30, 31},
		{"clock-skew-start", "clock-skew", histories.EdgeStart, 40, 41},
		{"heal", "partition", histories.EdgeStop, 50, 52},
		{"delay", "delay", histories.EdgeStart, 60, 61},
		{"leader-shuffle", "leader-shuffle", histories.EdgeInstant, 65, 65},
		{"delay-heal", "delay", histories.EdgeStop, 70, 72},
	}
	want := []window{{10, 31, "kill", false}, {20, 52, "partition", false}, {40, 100, "clock-skew", true},
		{60, 72, "delay", false}}
	for _, old := range []bool{true, false} {
		var nem []bar
		for _, e := range evs {
			f := e.old
			if !old {
				start, stop := histories.FaultEvents(e.kind, e.edge == histories.EdgeInstant)
				f = map[bool]string{true: stop, false: start}[e.edge == histories.EdgeStop]
			}
			nem = append(nem, bar{F: f, Start: e.start, End: e.end})
		}
		w := faultWindows(nem, 100, nil)
		if !slices.Equal(w, want) {
			t.Errorf("old names %v: windows %v, want %v", old, w, want)
		}
	}
}
