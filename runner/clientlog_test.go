package runner

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// clientLogLine is client.LogLine's form: time, level, [worker], facility,
// librdkafka's instance: message.
var clientLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z [a-z0-9]+ +\[(producer|consumer|copier|final reader) p\d+(,p\d+)*( consumer| producer)?\] [A-Z]+ \S+: `)

// A run writes librdkafka's own lines into the run directory's client.log,
// whole lines, each naming its worker: the producer's, a consumer's and the
// final reader's clients all log there.
//
// The check is strict where it counts: each of the three clients gets the
// run's Logs by its own path (workers' producer and consumer options, the
// runner's final reads), and every client logs an info line once it has
// connected (on kfake, librdkafka's telemetry GETSUBSCRIPTIONS line), so a
// path that lost the Logs, or a routed level left at stderr's errors-only,
// fails the test; every line must parse and the file must end in a whole
// line. What it does not require is a line about the killed leader: kfake
// keeps open connections to a killed node and drops their requests, so
// whether librdkafka notices in time depends on the load. The kill stays so
// that the log is checked on a run with a fault, where client.log is read.
func TestRunWritesTheClientLog(t *testing.T) {
	s := smallScenario()
	s.TimeLimit = generators.Duration(3 * time.Second)
	s.Nemesis = []generators.Fault{{Kind: generators.KindKill, Start: generators.Duration(500 * time.Millisecond),
		Duration: generators.Duration(1500 * time.Millisecond), Params: generators.FaultParams{Target: "leader"}}}
	out, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), TestName: t.Name(), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stats.FaultsFired == 0 {
		t.Fatal("the kill never fired")
	}
	b, err := os.ReadFile(filepath.Join(out.Dir, ClientLogFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("client.log does not end in a whole line:\n%s", text)
	}
	workers := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		m := clientLogLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not a client log line: %q", line)
			continue
		}
		workers[m[1]] = true
	}
	for _, w := range []string{"producer", "consumer", "final reader"} {
		if !workers[w] {
			t.Errorf("client.log has no line of a %s's client:\n%s", w, text)
		}
	}
}
