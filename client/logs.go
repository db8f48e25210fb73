package client

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// LogLine is one line of librdkafka's own log, with the worker whose client
// wrote it.
type LogLine struct {
	Time time.Time
	// Worker names the worker and its history processes: "producer p0,p1",
	// "consumer p3", "copier p5 consumer", "copier p5 producer", "final
	// reader p9".
	Worker   string
	Level    int    // syslog severity: 3 error, 4 warning, 5 notice, 6 info, 7 debug
	Facility string // librdkafka's tag: FAIL, ERROR, TXNERR, REQTMOUT, ...
	Client   string // librdkafka's instance name, e.g. kafkachaos-3#consumer-4
	Message  string
}

// String is the line as a client log holds it, on one line: time (UTC),
// level, worker, facility, librdkafka's instance and the message.
func (l LogLine) String() string {
	msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(l.Message)
	return fmt.Sprintf("%s %-7s [%s] %s %s: %s", l.Time.UTC().Format("2006-01-02T15:04:05.000000Z"),
		levelName(l.Level), l.Worker, l.Facility, l.Client, msg)
}

func levelName(level int) string {
	names := []string{"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"}
	if level >= 0 && level < len(names) {
		return names[level]
	}
	return "level" + strconv.Itoa(level)
}

// LogSink takes librdkafka's log lines. Log is called from one goroutine per
// client, so concurrently. A slow Log delays only that client's later lines,
// which wait in memory: librdkafka's threads never block on logging.
type LogSink interface {
	Log(LogLine)
}

// LogWriter is a LogSink that writes each line, newline included, in one
// Write: a file it writes to holds whole lines up to the last one written,
// whenever the process dies.
type LogWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewLogWriter returns a LogWriter writing to w.
func NewLogWriter(w io.Writer) *LogWriter { return &LogWriter{w: w} }

// Log implements LogSink. After a failed write it drops every line: Err
// says why.
func (lw *LogWriter) Log(l LogLine) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return
	}
	if _, err := io.WriteString(lw.w, l.String()+"\n"); err != nil {
		lw.err = fmt.Errorf("client log: %w", err)
	}
}

// Err returns the first write error, or nil.
func (lw *LogWriter) Err() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// Logs routes librdkafka's logs of every client given it (a run's) to one
// sink, instead of librdkafka's default, stderr. A nil *Logs leaves them on
// stderr, errors only.
//
// Each client's lines come through confluent-kafka-go's log channel
// (go.logs.channel.enable, which sets librdkafka's log.queue: its threads
// enqueue lines instead of printing them, and lines logged before the
// channel is read wait for it). A goroutine per client drains the channel
// into the sink until the client is closed (confluent-kafka-go then closes
// the channel) or until Close: a client abandoned after a hang (see
// Bounded) is never closed, and its drain must still end with the run.
// Lines librdkafka logs inside the client's own close (after
// confluent-kafka-go stops reading its log queue) are dropped.
type Logs struct {
	sink   LogSink
	stop   chan struct{}
	drains sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// NewLogs returns a Logs routing to sink.
func NewLogs(sink LogSink) *Logs { return &Logs{sink: sink, stop: make(chan struct{})} }

// Close ends every drain still running (those of abandoned clients, whose
// later lines are dropped) and waits for them: no line reaches the sink
// after Close returns. It may be called more than once.
func (l *Logs) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.stop)
	}
	l.mu.Unlock()
	l.drains.Wait()
}

// routedLevel is librdkafka's own default level: in a file, the warnings and
// notices (request timeouts, retries, rebalances) that explain an info op
// are worth keeping.
const routedLevel = 6

// configure makes a client's configuration route its logs here. The level
// is raised to routedLevel unless extra (the scenario's verbatim
// librdkafka settings) sets one.
func (l *Logs) configure(cm *kafka.ConfigMap, extra map[string]any) {
	if l == nil {
		return
	}
	(*cm)["go.logs.channel.enable"] = true
	if _, set := extra["log_level"]; !set {
		(*cm)["log_level"] = routedLevel
	}
}

// drain forwards ch's lines, named worker, to the sink; see Logs. A client
// made after Close is not drained: its lines wait in its channel, and
// confluent-kafka-go still closes it cleanly.
func (l *Logs) drain(worker string, ch chan kafka.LogEvent) {
	if l == nil || ch == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.drains.Add(1)
	go func() {
		defer l.drains.Done()
		for {
			var ev kafka.LogEvent
			var ok bool
			select {
			case ev, ok = <-ch:
			case <-l.stop:
				// Forward what is queued already, without
				// waiting for more.
				select {
				case ev, ok = <-ch:
				default:
					return
				}
			}
			if !ok {
				return
			}
			l.sink.Log(lineOf(worker, ev))
		}
	}()
}

func lineOf(worker string, ev kafka.LogEvent) LogLine {
	return LogLine{Time: ev.Timestamp, Worker: worker, Level: ev.Level, Facility: ev.Tag, Client: ev.Name,
		Message: ev.Message}
}

// processList names processes as a LogLine's Worker does: p0,p1.
func processList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = "p" + strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

// Log hands one line of a client that is not librdkafka (a Java client's
// JVM) to the sink; a nil *Logs writes it to stderr. Lines after Close are
// dropped, as the drains' are.
func (l *Logs) Log(line LogLine) {
	if l == nil {
		fmt.Fprintln(os.Stderr, line)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.sink.Log(line)
	}
}
