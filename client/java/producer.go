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

// producerState is where a Producer is in its life.
type producerState int

const (
	running producerState = iota
	closing
	crashed
	died // the JVM exited without Close or Crash
)

// Producer sends values through a Java KafkaProducer in a JVM of its own and
// records one send op per value: the invoke before the request goes to the
// JVM, the completion from its answer.
//
// As in client.Producer, every record is made under mu, and a send is in
// inflight exactly between its invoke and its completion: whoever removes it
// records its completion, so each invoke gets one, and none after its
// lane's crash op.
type Producer struct {
	opts  ProducerOptions
	jvm   *jvm
	lanes []int64
	free  chan int64    // lanes not in use
	stop  chan struct{} // closed at Crash, Close, or the JVM's death
	ended chan struct{} // closed once the JVM is reaped and every send completed
	// Started is how long the JVM took to make its producer.
	Started time.Duration

	mu       sync.Mutex
	state    producerState
	lastID   int64
	inflight map[int64]*pending
	exit     error // how the JVM ended, once it has
}

// pending is one send between invoke and completion.
type pending struct {
	inv   *histories.Op
	key   histories.Key
	value int64
	then  func(histories.Type)
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
	p := &Producer{opts: opts, free: make(chan int64, opts.Lanes), stop: make(chan struct{}),
		ended: make(chan struct{}), inflight: map[int64]*pending{}}
	for range opts.Lanes {
		id := opts.Processes.Next()
		p.lanes = append(p.lanes, id)
		p.free <- id
	}
	p.jvm, err = startJVM(tc, props, opts.Logs, "producer", "java producer "+processList(p.lanes))
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
func (p *Producer) Processes() []int64 { return append([]int64(nil), p.lanes...) }

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
	var lane int64
	select {
	case lane = <-p.free:
	case <-p.stop:
		return p.stoppedErr()
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		return p.stoppedErr()
	}
	p.lastID++
	id := p.lastID
	inv := p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Invoke, F: histories.FSend,
		Mops: []histories.Mop{histories.Send(key, value)}})
	p.inflight[id] = &pending{inv: inv, key: key, value: value, then: then}
	p.mu.Unlock()
	// A write the JVM's death cuts short leaves the send in flight: the
	// end of answers completes it.
	p.jvm.write(sendRequest{Op: "send", ID: id, Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.FormatInt(value, 10)})
	return nil
}

func (p *Producer) stoppedErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case crashed:
		return client.ErrCrashed
	case died:
		return fmt.Errorf("%w (%v)", errJVMDied, p.exit)
	}
	return client.ErrClosed
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
	p.mu.Lock()
	p.exit = exit
	if p.state == running {
		p.state = died
		close(p.stop)
	}
	done := p.completeAllLocked(errNoAnswer)
	if p.state == died {
		p.crashOpsLocked()
	}
	p.mu.Unlock()
	callThen(done, histories.Info)
}

// complete records send id's completion unless it was completed already,
// frees its lane while the producer runs, and tells the caller.
func (p *Producer) complete(id int64, offset *int64, exc *Exception) {
	p.mu.Lock()
	ps, t, ok := p.completeLocked(id, offset, exc, nil)
	release := ok && p.state == running
	p.mu.Unlock()
	if !ok {
		return
	}
	if release {
		p.free <- ps.inv.Process // cannot block: the lane was taken from free
	}
	if ps.then != nil {
		ps.then(t)
	}
}

// completeLocked records send id's completion if it is still in flight:
// from the JVM's answer (offset or exc), or cause when it has none. Called
// with mu held.
func (p *Producer) completeLocked(id int64, offset *int64, exc *Exception, cause error) (*pending, histories.Type, bool) {
	ps, ok := p.inflight[id]
	if !ok {
		return nil, "", false
	}
	delete(p.inflight, id)
	t := Outcome(exc)
	mop := histories.Send(ps.key, ps.value)
	op := &histories.Op{Process: ps.inv.Process, Type: t, F: ps.inv.F}
	switch {
	case cause != nil:
		t, op.Type, op.Error = histories.Info, histories.Info, cause.Error()
	case exc != nil:
		op.Error = exc.Error()
	case offset != nil && *offset >= 0:
		mop.Offset = *offset // acks=0 answers -1: landed where, unknown
	}
	op.Mops = []histories.Mop{mop}
	p.opts.Recorder.Record(op)
	return ps, t, true
}

// completeAllLocked completes every send in flight as info with cause;
// called with mu held. It returns the sends it completed.
func (p *Producer) completeAllLocked(cause error) []*pending {
	var out []*pending
	for id := range p.inflight {
		if ps, _, ok := p.completeLocked(id, nil, nil, cause); ok {
			out = append(out, ps)
		}
	}
	return out
}

// crashOpsLocked records a crash op for every lane; called with mu held.
func (p *Producer) crashOpsLocked() {
	for _, lane := range p.lanes {
		p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Info, F: histories.FCrash})
	}
}

func callThen(done []*pending, t histories.Type) {
	for _, ps := range done {
		if ps.then != nil {
			ps.then(t)
		}
	}
}

// Crash kills the JVM (SIGKILL: no flush, no close) as a process crash
// would: in-flight sends complete as info, each lane records a crash op and
// never sends again. A producer that is closing, crashed or dead already is
// left alone.
func (p *Producer) Crash() {
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		return
	}
	p.state = crashed
	close(p.stop)
	p.jvm.kill()
	done := p.completeAllLocked(client.ErrCrashed)
	p.crashOpsLocked()
	p.mu.Unlock()
	callThen(done, histories.Info)
}

// Close asks the JVM to close its producer, which waits for outstanding
// sends until ctx's deadline (none: at once) and then fails the rest, and
// waits for the JVM to exit. Sends without an answer by then complete as
// info. A JVM that has not exited closeGrace after the deadline is killed,
// and Close says so.
func (p *Producer) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		<-p.ended
		return nil
	}
	p.state = closing
	close(p.stop)
	p.mu.Unlock()
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
