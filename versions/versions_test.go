package versions

import (
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// VERSIONS.md: a table per scenario whose every line has the header's
// cells; a run's liveness headline in its columns, NO where the cluster
// never came back, and a harness error in place of a verdict.
func TestWriteMarkdown(t *testing.T) {
	rows := []Row{
		{Version: "3.9.1", Scenario: "kill", Expected: "at-least-once", Observed: "exactly-once", Held: true,
			Liveness: checkers.Headline{SendOutage: 6491 * time.Millisecond, Recovery: 2 * time.Millisecond,
				Recovered: true, WorstLag: 40 * time.Millisecond}, FaultsFired: 2, Dir: "runs/a"},
		{Version: "4.4.0", Scenario: "kill", Expected: "at-least-once", Observed: "exactly-once", Held: true,
			Liveness: checkers.Headline{NotLive: true, SendOutage: 9 * time.Second, Stalls: 1}, FaultsFired: 2, Dir: "runs/b"},
		{Version: "4.4.0", Scenario: "txn", Err: "cluster | did not start\nat all", Dir: "runs/c"},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, rows, "Generated now."); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	t.Log(md)
	header := "| version | expected | observed | held | live | anomalies | send outage | recovery | stalls | worst lag | faults fired |"
	if strings.Count(md, header) != 2 {
		t.Errorf("want the header once per scenario: %s", header)
	}
	for _, want := range []string{
		"| 3.9.1 | at-least-once | exactly-once | yes | yes | - | 6.491s | 2ms | 0 | 40ms | 2 |",
		"| 4.4.0 | at-least-once | exactly-once | yes | **NO** | - | 9s | never | 1 | - | 2 |",
		"| 4.4.0 | harness error: cluster / did not start at all |" + strings.Repeat("  |", 9),
		"Generated now.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing line %s", want)
		}
	}
	// the page is committed: it names no run directory of this machine
	for _, r := range rows {
		if strings.Contains(md, r.Dir) {
			t.Errorf("the page names the run directory %s", r.Dir)
		}
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "|") && strings.Count(l, "|") != strings.Count(header, "|") {
			t.Errorf("line of %d cells under a header of %d: %s", strings.Count(l, "|")-1, strings.Count(header, "|")-1, l)
		}
	}
}

// Every scenario's expectation names a consumer hop, so every scenario has
// a workload reader: without one the consumer hop is never exercised and
// the worst lag is not measured. Each is a valid scenario.
func TestScenariosHaveAReader(t *testing.T) {
	for _, s := range Scenarios("local", 25*time.Second) {
		if s.Workload.Consumers == 0 {
			t.Errorf("%s: no consumer", s.Name)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}
