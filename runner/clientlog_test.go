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
// final reader's clients all log there (at least the line each logs once
// it has connected). A kill of the leader adds lines about the lost broker
// when librdkafka notices it in time; kfake keeps open connections to a
// killed node and drops their requests, so how soon that is depends on the
// load, and those lines are not required.
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
