package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
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
	*jvm                // Pause and Resume stop it whole (pause-client)
	ended chan struct{} // closed once the JVM is reaped and every send completed
	// Started is how long the JVM took to make its producer.
	Started time.Duration

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
		ended: make(chan struct{}), byID: map[int64]*client.Send{}}
	p.jvm, err = startJVM(tc, props, opts.Logs, "producer", "java producer "+processList(p.sends.Processes()))
	if err != nil {
		return nil, err
	}
	p.Started = p.jvm.started
	go p.answers()
	return p, nil
}

// answer is one line of the JVM.
type answer struct {
	ID           int64  `json:"id"`
	Offset       *int64 `json:"offset"`
	Error        string `json:"error"`
	Message      string `json:"message"`
	BeforeAppend bool   `json:"before-append"`
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
	p.jvm.write(sendRequest{Op: "send", ID: id, Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.FormatInt(value, 10)})
	return nil
}

// answers records the JVM's answers until it exits, then reaps it and ends
// the producer: sends still open complete as info, and a JVM that died by
// itself ends its lanes with crash ops.
func (p *Producer) answers() {
	defer close(p.ended)
	lines := p.jvm.lines
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
	exit := p.jvm.reap()
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
		p.jvm.kill()
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
	return p.jvm.close(wait, p.ended, "producer")
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
