package client

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// closedPort is a bootstrap nothing listens on: librdkafka logs
// "Connection refused" at once.
const closedPort = "127.0.0.1:1"

// logsChildEnv makes TestLogsReachTheSinkNotStderr's own binary the child
// whose stderr it reads: "sink" routes the logs, "stderr" does not.
const logsChildEnv = "KAFKACHAOS_LOGS_CHILD"

// lineSink keeps every line it is given.
type lineSink struct {
	mu    sync.Mutex
	lines []LogLine
	after func() // called under mu after each line, when set
}

func (s *lineSink) Log(l LogLine) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, l)
	if s.after != nil {
		s.after()
	}
}

// refused reports whether worker has logged a refused connection.
func (s *lineSink) refused(worker string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lines {
		if l.Worker == worker && strings.Contains(l.Message, "Connection refused") {
			return true
		}
	}
	return false
}

func oneKey(t *testing.T) *KeyMap {
	t.Helper()
	km, err := NewKeyMap(map[histories.Key]TopicPartition{0: {Topic: "t", Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	return km
}

// unreachable starts a producer (lane p0) and a consumer (p7) on closedPort
// and makes both connect.
func unreachable(t *testing.T, logs *Logs) (*Producer, *Consumer) {
	t.Helper()
	km := oneKey(t)
	p, err := NewProducer(ProducerOptions{Bootstrap: closedPort, Keys: km, Recorder: NewMemRecorder(),
		Processes: &Processes{}, Logs: logs})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConsumer(ConsumerOptions{Bootstrap: closedPort, Keys: km, Recorder: NewMemRecorder(), Process: 7,
		Logs: logs, callTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SendAsync(context.Background(), 0, 1, nil); err != nil {
		t.Fatal(err)
	}
	c.Assign(km.Keys()) // its outcome is beside the point: the connect is
	return p, c
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// The child's librdkafka lines reach the sink, named by worker, and not its
// stderr; without Logs the same lines do reach stderr (so the stderr check
// is one that can fail).
func TestLogsReachTheSinkNotStderr(t *testing.T) {
	if mode := os.Getenv(logsChildEnv); mode != "" {
		logsChild(t, mode)
		return
	}
	for _, tc := range []struct {
		mode       string
		wantStderr bool
	}{{"sink", false}, {"stderr", true}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLogsReachTheSinkNotStderr$")
		cmd.Env = append(os.Environ(), logsChildEnv+"="+tc.mode)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s child: %v\nstdout:\n%s\nstderr:\n%s", tc.mode, err, &stdout, &stderr)
		}
		if got := strings.Contains(stderr.String(), "Connection refused"); got != tc.wantStderr {
			t.Errorf("%s child: refused connections on stderr %v, want %v; stderr:\n%s", tc.mode, got, tc.wantStderr, &stderr)
		}
		if tc.mode != "sink" {
			continue
		}
		for _, want := range []string{"[producer p0] FAIL ", "[consumer p7] FAIL "} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("sink child: no %q line; stdout:\n%s", want, &stdout)
			}
		}
	}
}

// logsChild connects a producer and a consumer to a closed port. In "sink"
// mode their lines go to stdout through a LogWriter, and it waits for both
// workers' refused connections; in "stderr" mode it gives librdkafka the
// same time to print them.
func logsChild(t *testing.T, mode string) {
	var logs *Logs
	seen := &lineSink{}
	if mode == "sink" {
		w := NewLogWriter(os.Stdout)
		seen.after = func() { w.Log(seen.lines[len(seen.lines)-1]) }
		logs = NewLogs(seen)
	}
	p, c := unreachable(t, logs)
	if mode != "sink" {
		time.Sleep(2 * time.Second)
	} else if !waitFor(10*time.Second, func() bool { return seen.refused("producer p0") && seen.refused("consumer p7") }) {
		t.Errorf("no refused connection from both workers in 10s: %v", seen.lines)
	}
	p.Crash()
	c.Crash(CrashAnywhere)
	logs.Close()
}

// A client abandoned without a close (as after a hang) keeps its log
// channel open; Close must still end its drain, and no line may reach the
// sink after Close returns.
func TestLogsCloseEndsTheDrainOfAnAbandonedClient(t *testing.T) {
	var closed, late bool
	sink := &lineSink{}
	sink.after = func() { late = late || closed }
	logs := NewLogs(sink)
	p, c := unreachable(t, logs)
	defer c.Crash(CrashAnywhere)
	defer p.Crash()
	if !waitFor(10*time.Second, func() bool { return sink.refused("producer p0") }) {
		t.Fatal("no line from the producer in 10s")
	}
	done := make(chan struct{})
	go func() { logs.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the drains of two clients that were never closed")
	}
	sink.mu.Lock()
	closed = true
	sink.mu.Unlock()
	logs.Close() // twice is fine
	p.Crash()
	c.Crash(CrashAnywhere)
	time.Sleep(200 * time.Millisecond)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if late {
		t.Error("a line reached the sink after Close")
	}
}

// A closed client's drain ends with it, without Close.
func TestLogsDrainEndsWithItsClient(t *testing.T) {
	logs := NewLogs(&lineSink{})
	p, c := unreachable(t, logs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.Close(ctx)
	c.Close()
	ended := make(chan struct{})
	go func() { logs.drains.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(15 * time.Second):
		t.Fatal("drains still running 15s after both clients closed")
	}
}

// Routing enables confluent-kafka-go's log channel and raises the level to
// librdkafka's default, unless the scenario's Extra sets one; without Logs
// the configuration is unchanged.
func TestLogsConfigure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		logs      *Logs
		extra     map[string]any
		wantLevel any
		wantChan  bool
	}{
		{"routed", NewLogs(&lineSink{}), nil, routedLevel, true},
		{"routed, level from extra", NewLogs(&lineSink{}), map[string]any{"log_level": 7}, 7, true},
		{"not routed", nil, nil, 3, false},
	} {
		cm, err := ProducerConfig{Extra: tc.extra}.ConfigMap("b:1")
		if err != nil {
			t.Fatal(err)
		}
		tc.logs.configure(cm, tc.extra)
		if got := (*cm)["log_level"]; got != tc.wantLevel {
			t.Errorf("%s: log_level %v, want %v", tc.name, got, tc.wantLevel)
		}
		if got := (*cm)["go.logs.channel.enable"] == true; got != tc.wantChan {
			t.Errorf("%s: go.logs.channel.enable %v, want %v", tc.name, got, tc.wantChan)
		}
	}
}

// writes records each Write on its own.
type writes struct{ calls []string }

func (w *writes) Write(b []byte) (int, error) {
	w.calls = append(w.calls, string(b))
	return len(b), nil
}

// Each line is one Write ending in its only newline, so a file cut short
// by a crash holds whole lines.
func TestLogWriterWritesWholeLines(t *testing.T) {
	w := &writes{}
	lw := NewLogWriter(w)
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	lw.Log(LogLine{Time: at, Worker: "consumer p3", Level: 3, Facility: "FAIL", Client: "kafkachaos-3#consumer-1",
		Message: "first\nsecond"})
	lw.Log(LogLine{Time: at, Worker: "final reader p9", Level: 9, Facility: "X", Client: "c", Message: "m"})
	want := []string{
		"2025-01-02T03:04:05.000006Z error   [consumer p3] FAIL kafkachaos-3#consumer-1: first second\n",
		"2025-01-02T03:04:05.000006Z level9  [final reader p9] X c: m\n",
	}
	if strings.Join(w.calls, "|") != strings.Join(want, "|") {
		t.Fatalf("writes %q, want %q", w.calls, want)
	}
	if lw.Err() != nil {
		t.Fatal(lw.Err())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(b []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// A failed write is reported by Err, and later lines are not attempted.
func TestLogWriterKeepsTheFirstError(t *testing.T) {
	f := &failingWriter{}
	lw := NewLogWriter(f)
	lw.Log(LogLine{Message: "a"})
	lw.Log(LogLine{Message: "b"})
	if err := lw.Err(); err == nil || err.Error() != "client log: disk full" {
		t.Fatalf("Err() = %v, want client log: disk full", err)
	}
	if f.n != 1 {
		t.Fatalf("%d writes, want 1 (none after the failure)", f.n)
	}
}

// The sink is told librdkafka's instance name, facility and level as
// confluent-kafka-go delivers them.
func TestLineOf(t *testing.T) {
	at := time.Now()
	got := lineOf("copier p5 producer", kafka.LogEvent{Name: "rdkafka#producer-3", Tag: "TXNERR", Message: "m", Level: 4, Timestamp: at})
	want := LogLine{Time: at, Worker: "copier p5 producer", Level: 4, Facility: "TXNERR", Client: "rdkafka#producer-3", Message: "m"}
	if got != want {
		t.Fatalf("lineOf = %+v, want %+v", got, want)
	}
}
