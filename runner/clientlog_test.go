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

// A run that kills the producer's partition leader writes librdkafka's
// lines about it (the broken connection) into the run directory's
// client.log, each naming its worker.
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
	var producerLost bool
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !clientLogLine.MatchString(line) {
			t.Errorf("not a client log line: %q", line)
		}
		producerLost = producerLost || strings.Contains(line, "[producer p") &&
			(strings.Contains(line, "Disconnected") || strings.Contains(line, "Connection refused"))
	}
	if !producerLost {
		t.Errorf("client.log has no line of the producer losing the killed leader:\n%s", text)
	}
}
