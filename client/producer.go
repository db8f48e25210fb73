package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrCrashed is returned by a worker after Crash.
var ErrCrashed = errors.New("client: worker crashed")

// ErrClosed is returned by a worker after Close.
var ErrClosed = errors.New("client: worker closed")

// errNoReport completes a send whose delivery report never came: the
// producer was closed first, so the record may or may not be in the log.
var errNoReport = errors.New("client: producer closed before the send's delivery report")

// closeGrace bounds how long Close waits for librdkafka's own close once the
// flush is over (or its ctx expired): a handle that does not close in time is
// abandoned and Close says so.
const closeGrace = 5 * time.Second

// ProducerOptions configures a Producer.
type ProducerOptions struct {
	Bootstrap string
	Config    ProducerConfig
	Keys      *KeyMap
	Recorder  Recorder
	Processes *Processes
	// Lanes is how many sends may be in flight at once; each lane is one
	// process of the history (a process has one op at a time). 0 means 1.
	Lanes int
	// Logs, when set, takes librdkafka's own log lines; nil leaves them
	// on stderr.
	Logs *Logs
}

// producerState is where a Producer is in its life.
type producerState int

const (
	producerRunning producerState = iota
	producerClosing
	producerCrashed
)

// Producer sends values and records one send op per value: the invoke
// before Produce, the completion from the delivery report.
//
// Every record of a producer (invokes, completions, crash ops) is made under
// mu, and a send is in inflight exactly between its invoke and its
// completion: a completion is recorded only by whoever removes the send from
// inflight, so each invoke gets one completion, and none after its lane's
// crash op.
type Producer struct {
	opts     ProducerOptions
	mayRetry bool // see SendOutcome
	kp       *kafka.Producer
	lanes    []int64
	free     chan int64    // lanes not in use; never holds more than len(lanes)
	stopped  chan struct{} // closed at Crash or Close: no lane is handed out again
	done     chan struct{} // closed when the delivery loop ends
	sending  sync.WaitGroup

	mu       sync.Mutex
	state    producerState
	inflight map[*pendingSend]struct{}
}

// pendingSend is one send between invoke and completion; it rides in the
// message's Opaque.
type pendingSend struct {
	inv   *histories.Op
	key   histories.Key
	value int64
	then  func(histories.Type)
}

// NewProducer starts a producer; its lanes take fresh process ids.
func NewProducer(opts ProducerOptions) (*Producer, error) {
	if opts.Keys == nil || opts.Recorder == nil || opts.Processes == nil {
		return nil, errors.New("producer: Keys, Recorder and Processes are required")
	}
	if opts.Lanes <= 0 {
		opts.Lanes = 1
	}
	cm, err := opts.Config.ConfigMap(opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	opts.Logs.configure(cm, opts.Config.Extra)
	kp, err := kafka.NewProducer(cm)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	p := &Producer{opts: opts, mayRetry: opts.Config.mayResend(), kp: kp, free: make(chan int64, opts.Lanes),
		stopped: make(chan struct{}), done: make(chan struct{}), inflight: make(map[*pendingSend]struct{})}
	for range opts.Lanes {
		id := opts.Processes.Next()
		p.lanes = append(p.lanes, id)
		p.free <- id
	}
	opts.Logs.drain("producer "+processList(p.lanes), kp.Logs())
	go p.deliveries()
	return p, nil
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return append([]int64(nil), p.lanes...) }

// SendAsync waits for a free lane, records the invoke and hands the value to
// librdkafka; then is called with the completion type from the delivery
// loop. It returns an error only when nothing was recorded.
func (p *Producer) SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error {
	tp, ok := p.opts.Keys.TP(key)
	if !ok {
		return fmt.Errorf("producer: key %d is not in the key map", key)
	}
	var lane int64
	select {
	case lane = <-p.free:
	case <-p.stopped:
		return p.stoppedErr()
	case <-ctx.Done():
		return ctx.Err()
	}
	ps := &pendingSend{key: key, value: value, then: then}
	p.mu.Lock()
	if p.state != producerRunning {
		p.mu.Unlock()
		return p.stoppedErr()
	}
	ps.inv = p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Invoke, F: histories.FSend,
		Mops: []histories.Mop{histories.Send(key, value)}})
	p.inflight[ps] = struct{}{}
	// Close and Crash wait for sending before they destroy the handle.
	p.sending.Add(1)
	p.mu.Unlock()
	defer p.sending.Done()
	msg := &kafka.Message{TopicPartition: tp, Value: encodeValue(value), Opaque: ps}
	if err := p.produce(ctx, msg); err != nil {
		p.complete(ps, histories.NoOffset, fmt.Errorf("%w: %w", errNotSent, err))
	}
	return nil
}

func (p *Producer) stoppedErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == producerCrashed {
		return ErrCrashed
	}
	return ErrClosed
}

// produce enqueues msg, waiting out a full local queue: backpressure, not an
// outcome.
func (p *Producer) produce(ctx context.Context, msg *kafka.Message) error {
	for {
		err := p.kp.Produce(msg, nil)
		var kerr kafka.Error
		if !errors.As(err, &kerr) || kerr.Code() != kafka.ErrQueueFull {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-p.stopped:
			return err
		case <-time.After(time.Millisecond):
		}
	}
}

// deliveries records completions from librdkafka's delivery reports. When
// the loop ends (the handle closed, or a panic in a then callback) every send
// still in flight completes as info: it has no report and never will.
func (p *Producer) deliveries() {
	defer close(p.done)
	defer p.abandon(errNoReport)
	for ev := range p.kp.Events() {
		m, ok := ev.(*kafka.Message)
		if !ok {
			continue // client-level errors: each message gets its own report
		}
		ps, ok := m.Opaque.(*pendingSend)
		if !ok {
			continue
		}
		p.complete(ps, deliveredOffset(m), m.TopicPartition.Error)
	}
}

// complete records ps's completion unless it was completed already (by a
// crash or close), frees its lane while the producer runs, and tells the
// caller.
func (p *Producer) complete(ps *pendingSend, offset int64, err error) {
	p.mu.Lock()
	t, ok := p.completeLocked(ps, offset, err)
	release := ok && p.state == producerRunning
	p.mu.Unlock()
	if !ok {
		return
	}
	if release {
		// Cannot block: a lane is in free or held by its one send.
		p.free <- ps.inv.Process
	}
	if ps.then != nil {
		ps.then(t)
	}
}

// completeLocked records ps's completion if it is still in flight; called
// with mu held.
func (p *Producer) completeLocked(ps *pendingSend, offset int64, err error) (histories.Type, bool) {
	if _, ok := p.inflight[ps]; !ok {
		return "", false
	}
	delete(p.inflight, ps)
	t := SendOutcome(err, p.mayRetry)
	mop := histories.Send(ps.key, ps.value)
	if t == histories.OK {
		mop.Offset = offset
	}
	op := &histories.Op{Process: ps.inv.Process, Type: t, F: ps.inv.F, Mops: []histories.Mop{mop}}
	if err != nil {
		op.Error = err.Error()
	}
	p.opts.Recorder.Record(op)
	return t, true
}

// abandon completes every send still in flight with err (info: the
// outcome is unknown) and calls their callbacks.
func (p *Producer) abandon(err error) {
	p.mu.Lock()
	done := p.completeAllLocked(err)
	p.mu.Unlock()
	for _, ps := range done {
		if ps.then != nil {
			ps.then(histories.Info)
		}
	}
}

// completeAllLocked completes every send in flight with err; called with
// mu held. It returns the sends it completed.
func (p *Producer) completeAllLocked(err error) []*pendingSend {
	out := make([]*pendingSend, 0, len(p.inflight))
	for ps := range p.inflight {
		out = append(out, ps)
	}
	for _, ps := range out {
		p.completeLocked(ps, histories.NoOffset, err)
	}
	return out
}

// Close flushes outstanding sends (up to ctx's deadline) and closes the
// producer. Sends without a delivery report by then complete as info. It
// returns an error when librdkafka's close did not return within closeGrace;
// the handle is then abandoned, and every send has its completion anyway.
func (p *Producer) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.state != producerRunning {
		p.mu.Unlock()
		return nil
	}
	p.state = producerClosing
	close(p.stopped)
	p.mu.Unlock()
	p.sending.Wait() // bounded: produce gives up once stopped is closed
	for p.kp.Len() > 0 && ctx.Err() == nil {
		p.kp.Flush(100)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		p.kp.Close()
	}()
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	// The delivery loop records every report the handle still hands over
	// and then abandons the rest; if it does not end in time, abandon here.
	select {
	case <-p.done:
	case <-grace.C:
		p.abandon(errNoReport)
		return errCloseHung
	}
	select {
	case <-closed:
		return nil
	case <-grace.C:
		return errCloseHung
	}
}

// errCloseHung is Close's error when librdkafka's close outlived closeGrace.
var errCloseHung = fmt.Errorf("producer: librdkafka close did not return within %s; handle abandoned", closeGrace)

// Crash tears the producer down as a process crash would: in-flight sends
// complete as info (their fate is unknown), each lane records a crash op and
// never sends again, queued messages are purged unsent, and the handle is
// destroyed in the background without a flush. Completions and crash ops are
// recorded under one lock, so no lane has an op after its crash op. A
// producer that is closing or crashed already is left alone.
func (p *Producer) Crash() {
	p.mu.Lock()
	if p.state != producerRunning {
		p.mu.Unlock()
		return
	}
	p.state = producerCrashed
	close(p.stopped)
	pending := p.completeAllLocked(ErrCrashed)
	for _, lane := range p.lanes {
		p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Info, F: histories.FCrash})
	}
	p.mu.Unlock()
	for _, ps := range pending {
		if ps.then != nil {
			ps.then(histories.Info)
		}
	}
	p.kp.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	go func() {
		p.sending.Wait()
		p.kp.Close()
	}()
}

// deliveredOffset is where a delivery report says a record landed, or
// NoOffset. librdkafka reports a negative offset (-1001, OFFSET_INVALID) for
// a send it knows landed but not where, e.g. an idempotent retry the broker
// answered DUPLICATE_SEQUENCE_NUMBER.
func deliveredOffset(m *kafka.Message) int64 {
	if m.TopicPartition.Error != nil || m.TopicPartition.Offset < 0 {
		return histories.NoOffset
	}
	return int64(m.TopicPartition.Offset)
}
