package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrCrashed is returned by a worker after Crash.
var ErrCrashed = errors.New("client: worker crashed")

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
}

// Producer sends values and records one send op per value: the invoke
// before Produce, the completion from the delivery report.
type Producer struct {
	opts    ProducerOptions
	kp      *kafka.Producer
	lanes   []int64
	free    chan int64
	crashed atomic.Bool
	done    chan struct{} // closed when the delivery loop ends

	mu       sync.Mutex
	inflight map[*pendingSend]struct{}
}

// pendingSend is one send between invoke and completion; it rides in the
// message's Opaque.
type pendingSend struct {
	inv       *histories.Op
	key       histories.Key
	value     int64
	completed atomic.Bool
	then      func(histories.Type)
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
	kp, err := kafka.NewProducer(cm)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	p := &Producer{opts: opts, kp: kp, free: make(chan int64, opts.Lanes), done: make(chan struct{}),
		inflight: make(map[*pendingSend]struct{})}
	for range opts.Lanes {
		id := opts.Processes.Next()
		p.lanes = append(p.lanes, id)
		p.free <- id
	}
	go p.deliveries()
	return p, nil
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return append([]int64(nil), p.lanes...) }

// Send sends value to key and waits for its outcome.
func (p *Producer) Send(ctx context.Context, key histories.Key, value int64) (histories.Type, error) {
	res := make(chan histories.Type, 1)
	if err := p.SendAsync(ctx, key, value, func(t histories.Type) { res <- t }); err != nil {
		return "", err
	}
	return <-res, nil
}

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
	case <-ctx.Done():
		return ctx.Err()
	}
	ps := &pendingSend{key: key, value: value, then: then}
	// Under mu so that Crash sees every recorded invoke in inflight.
	p.mu.Lock()
	if p.crashed.Load() {
		p.mu.Unlock()
		return ErrCrashed
	}
	ps.inv = p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Invoke, F: histories.FSend,
		Mops: []histories.Mop{histories.Send(key, value)}})
	p.inflight[ps] = struct{}{}
	p.mu.Unlock()
	msg := &kafka.Message{TopicPartition: tp, Value: encodeValue(value), Opaque: ps}
	if err := p.produce(ctx, msg); err != nil {
		p.complete(ps, histories.NoOffset, fmt.Errorf("%w: %w", errNotSent, err))
	}
	return nil
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
		case <-time.After(time.Millisecond):
		}
	}
}

// deliveries records completions from librdkafka's delivery reports.
func (p *Producer) deliveries() {
	defer close(p.done)
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

// complete records ps's completion once, frees its lane and tells the
// caller. A crash completes in-flight sends itself; their later reports are
// dropped here.
func (p *Producer) complete(ps *pendingSend, offset int64, err error) {
	if !ps.completed.CompareAndSwap(false, true) {
		return
	}
	t := completion(err)
	mop := histories.Send(ps.key, ps.value)
	if t == histories.OK {
		mop.Offset = offset
	}
	p.record(ps.inv, t, []histories.Mop{mop}, err)
	p.mu.Lock()
	delete(p.inflight, ps)
	p.mu.Unlock()
	if !p.crashed.Load() {
		p.free <- ps.inv.Process
	}
	if ps.then != nil {
		ps.then(t)
	}
}

func (p *Producer) record(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops}
	if err != nil {
		op.Error = err.Error()
	}
	p.opts.Recorder.Record(op)
}

// Close flushes outstanding sends (up to ctx's deadline) and closes the
// producer cleanly.
func (p *Producer) Close(ctx context.Context) {
	for p.kp.Len() > 0 && ctx.Err() == nil {
		p.kp.Flush(100)
	}
	p.kp.Close()
	<-p.done
}

// Crash tears the producer down as a process crash would: in-flight sends
// complete as info (their fate is unknown), each lane records a crash op and
// never sends again, queued messages are purged unsent, and the handle is
// destroyed in the background without a flush.
func (p *Producer) Crash() {
	p.mu.Lock()
	if p.crashed.Swap(true) {
		p.mu.Unlock()
		return
	}
	pending := make([]*pendingSend, 0, len(p.inflight))
	for ps := range p.inflight {
		pending = append(pending, ps)
	}
	p.mu.Unlock()
	for _, ps := range pending {
		p.complete(ps, histories.NoOffset, ErrCrashed)
	}
	for _, lane := range p.lanes {
		p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Info, F: histories.FCrash})
	}
	// Unblock SendAsync callers waiting for a lane: they see crashed.
	for range p.lanes {
		select {
		case p.free <- -1:
		default:
		}
	}
	p.kp.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	go p.kp.Close()
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
