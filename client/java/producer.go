package java

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
)

// ProducerOptions configures a Producer.
type ProducerOptions struct {
	Bootstrap string
	Config    client.ProducerConfig
	// Version is the kafka-clients release; "" means kafkadist.Version().
	Version   string
	Keys      *client.KeyMap
	Recorder  client.Recorder
	Processes *client.Processes
	// Lanes is how many sends may be in flight at once, each lane a
	// process of the history. 0 means 1.
	Lanes int
	// Logs takes the JVM's log lines (slf4j, warnings and up); nil:
	// stderr.
	Logs *client.Logs
}

// startBound bounds a JVM's start: exec, class loading, the producer made.
const startBound = 60 * time.Second

// closeGrace bounds the wait for the JVM's exit beyond the close's own
// timeout; one that has not exited by then is killed.
const closeGrace = 5 * time.Second

var (
	// errNoAnswer completes a send the JVM never answered: it exited
	// first (closed, or died), so the record may or may not be in the log.
	errNoAnswer = errors.New("java: the client's JVM ended before answering the send")
	// errJVMDied is a JVM that exited without being told to.
	errJVMDied = errors.New("java: the client's JVM exited by itself")
)

// Producer sends values through a Java KafkaProducer in a JVM of its own and
// records one send op per value: the invoke before the request goes to the
// JVM, the completion from its answer, in its client.Sends.
type Producer struct {
	opts  ProducerOptions
	sends *client.Sends
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ended chan struct{} // closed once the JVM is reaped and every send completed
	// logged is closed when the JVM's stderr has been read to its end
	logged chan struct{}
	// Started is how long the JVM took to make its producer.
	Started time.Duration

	writeMu sync.Mutex // one request line at a time

	mu     sync.Mutex
	lastID int64
	byID   map[int64]*client.Send // the sends the JVM has not answered
}

// NewProducer builds the worker for opts.Version if needed (Ensure), starts
// its JVM and returns once the JVM's producer is made; its lanes take
// fresh process ids.
func NewProducer(ctx context.Context, opts ProducerOptions) (*Producer, error) {
	if opts.Keys == nil || opts.Recorder == nil || opts.Processes == nil {
		return nil, errors.New("java producer: Keys, Recorder and Processes are required")
	}
	opts.Lanes = max(opts.Lanes, 1)
	props, err := Properties(opts.Config, opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	tc, err := Ensure(ctx, opts.Version)
	if err != nil {
		return nil, err
	}
	p := &Producer{opts: opts, sends: client.NewSends(opts.Recorder, opts.Processes, opts.Lanes),
		ended: make(chan struct{}), logged: make(chan struct{}), byID: map[int64]*client.Send{}}
	if err := p.start(tc, props); err != nil {
		return nil, err
	}
	return p, nil
}

// start runs the JVM and waits for its ready line.
func (p *Producer) start(tc Toolchain, props []string) error {
	args := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showThreadName=false",
		"-cp", tc.Classpath, mainClass}
	args = append(append(args, ownedproc.Args()...), props...)
	p.cmd = exec.Command(tc.Java, args...)
	// Should the harness die without a Close, the JVM dies with it.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return fmt.Errorf("java producer: %w", err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("java producer: %w", err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("java producer: %w", err)
	}
	began := time.Now()
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("java producer: starting %s: %w", tc.Java, err)
	}
	go p.logs(stderr)
	lines := bufio.NewScanner(stdout)
	ready := make(chan error, 1)
	go func() { ready <- awaitReady(lines) }()
	t := time.NewTimer(startBound)
	defer t.Stop()
	select {
	case err = <-ready:
	case <-t.C:
		err = fmt.Errorf("its producer was not made within %v", startBound)
	}
	if err != nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		return fmt.Errorf("java producer (kafka-clients %s): %w", tc.Version, err)
	}
	p.Started = time.Since(began)
	go p.answers(lines)
	return nil
}

// awaitReady reads the JVM's first line: ready, or why its producer could
// not be made.
func awaitReady(lines *bufio.Scanner) error {
	if !lines.Scan() {
		return fmt.Errorf("the JVM exited before its producer was made (its log says why): %v", lines.Err())
	}
	var a answer
	if err := json.Unmarshal(lines.Bytes(), &a); err != nil {
		return fmt.Errorf("unreadable first line %q: %w", lines.Text(), err)
	}
	if !a.Ready {
		return fmt.Errorf("%s: %s", a.Fatal, a.Message)
	}
	return nil
}

// answer is one line of the JVM.
type answer struct {
	ID           int64  `json:"id"`
	Offset       *int64 `json:"offset"`
	Error        string `json:"error"`
	Message      string `json:"message"`
	BeforeAppend bool   `json:"before-append"`
	Ready        bool   `json:"ready"`
	Closed       bool   `json:"closed"`
	Fatal        string `json:"fatal"`
}

// sendRequest and closeRequest are the harness's lines.
type sendRequest struct {
	Op        string `json:"op"`
	ID        int64  `json:"id"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Value     string `json:"value"`
}

type closeRequest struct {
	Op        string `json:"op"`
	TimeoutMS int64  `json:"timeout-ms"`
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return p.sends.Processes() }

// SendAsync waits for a free lane, records the invoke and hands the value to
// the JVM; then is called with the completion type once it is known. It
// returns an error only when nothing was recorded: client.ErrCrashed after
// Crash, client.ErrClosed after Close, and an error naming the JVM's exit
// when it died by itself.
func (p *Producer) SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error {
	tp, ok := p.opts.Keys.TP(key)
	if !ok {
		return fmt.Errorf("java producer: key %d is not in the key map", key)
	}
	sd, err := p.sends.Begin(ctx, key, value, then)
	if err != nil {
		return err
	}
	defer p.sends.Handed()
	p.mu.Lock()
	p.lastID++
	id := p.lastID
	p.byID[id] = sd
	p.mu.Unlock()
	// A write the JVM's death cuts short leaves the send in flight: the
	// end of answers completes it.
	p.write(sendRequest{Op: "send", ID: id, Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.FormatInt(value, 10)})
	return nil
}

func (p *Producer) write(req any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

// answers records the JVM's answers until it exits, then reaps it and ends
// the producer: sends still open complete as info, and a JVM that died by
// itself ends its lanes with crash ops.
func (p *Producer) answers(lines *bufio.Scanner) {
	defer close(p.ended)
	for lines.Scan() {
		var a answer
		if err := json.Unmarshal(lines.Bytes(), &a); err != nil || a.ID == 0 {
			continue // not an answer to a send (closed, or noise)
		}
		var exc *Exception
		if a.Error != "" {
			exc = &Exception{Class: a.Error, Message: a.Message, BeforeAppend: a.BeforeAppend}
		}
		p.complete(a.ID, a.Offset, exc)
	}
	<-p.logged // Wait closes stderr: read it to its end first
	exit := p.cmd.Wait()
	died := p.sends.End(fmt.Errorf("%w (%v)", errJVMDied, exit))
	p.sends.Abandon(errNoAnswer)
	if died {
		p.sends.CrashOps()
	}
}

// complete records send id's completion from the JVM's answer (offset or
// exc) unless it was completed already.
func (p *Producer) complete(id int64, offset *int64, exc *Exception) {
	p.mu.Lock()
	sd, ok := p.byID[id]
	delete(p.byID, id)
	p.mu.Unlock()
	if !ok {
		return
	}
	var err error
	at := histories.NoOffset // acks=0 answers -1: landed where, unknown
	switch {
	case exc != nil:
		err = exc
	case offset != nil:
		at = *offset
	}
	p.sends.Complete(sd, Outcome(exc), at, err)
}

// Crash kills the JVM (SIGKILL: no flush, no close) as a process crash
// would: in-flight sends complete as info, each lane records a crash op and
// never sends again. A producer that is closing, crashed or dead already is
// left alone.
func (p *Producer) Crash() {
	if p.sends.Crash(client.ErrCrashed) {
		p.cmd.Process.Signal(syscall.SIGKILL) // by pidfd: never a reused pid
	}
}

// Close asks the JVM to close its producer, which waits for outstanding
// sends until ctx's deadline (none: at once) and then fails the rest, and
// waits for the JVM to exit. Sends without an answer by then complete as
// info. A JVM that has not exited closeGrace after the deadline is killed,
// and Close says so.
func (p *Producer) Close(ctx context.Context) error {
	if !p.sends.End(client.ErrClosed) {
		<-p.ended
		return nil
	}
	var wait time.Duration
	if dl, ok := ctx.Deadline(); ok {
		wait = max(time.Until(dl), 0)
	}
	p.write(closeRequest{Op: "close", TimeoutMS: wait.Milliseconds()})
	p.stdin.Close()
	t := time.NewTimer(wait + closeGrace)
	defer t.Stop()
	select {
	case <-p.ended:
		return nil
	case <-t.C:
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.ended
		return fmt.Errorf("java producer: its JVM did not exit within %v of the close: killed", wait+closeGrace)
	}
}

// logs forwards the JVM's stderr (slf4j-simple: "LEVEL logger - message")
// to the run's client log.
func (p *Producer) logs(stderr io.Reader) {
	defer close(p.logged)
	worker := "java producer " + processList(p.sends.Processes())
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		p.opts.Logs.Log(logLine(worker, sc.Text()))
	}
}

func processList(ids []int64) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += "p" + strconv.FormatInt(id, 10)
	}
	return s
}
