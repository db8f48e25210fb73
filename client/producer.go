package client

import (
	"context"
	"errors"
	"fmt"
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

// Producer sends values and records one send op per value in its Sends:
// the invoke before Produce, the completion from the delivery report.
type Producer struct {
	opts     ProducerOptions
	mayRetry bool // see SendOutcome
	kp       *kafka.Producer
	sends    *Sends
	done     chan struct{} // closed when the delivery loop ends
}

// NewProducer starts a producer; its lanes take fresh process ids.
func NewProducer(opts ProducerOptions) (*Producer, error) {
	if opts.Keys == nil || opts.Recorder == nil || opts.Processes == nil {
		return nil, errors.New("producer: Keys, Recorder and Processes are required")
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
	p := &Producer{opts: opts, mayRetry: opts.Config.mayResend(), kp: kp,
		sends: NewSends(opts.Recorder, opts.Processes, opts.Lanes), done: make(chan struct{})}
	opts.Logs.drain("producer "+processList(p.sends.Processes()), kp.Logs())
	go p.deliveries()
	return p, nil
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return p.sends.Processes() }

// SendAsync waits for a free lane, records the invoke and hands the value to
// librdkafka; then is called with the completion type from the delivery
// loop. It returns an error only when nothing was recorded.
func (p *Producer) SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error {
	tp, ok := p.opts.Keys.TP(key)
	if !ok {
		return fmt.Errorf("producer: key %d is not in the key map", key)
	}
	sd, err := p.sends.Begin(ctx, key, value, then)
	if err != nil {
		return err
	}
	// Close and Crash wait for Handed before they destroy the handle.
	defer p.sends.Handed()
	msg := &kafka.Message{TopicPartition: tp, Value: encodeValue(value), Opaque: sd}
	if err := p.produce(ctx, msg); err != nil {
		p.complete(sd, histories.NoOffset, fmt.Errorf("%w: %w", errNotSent, err))
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
		case <-p.sends.stopped:
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
	defer p.sends.Abandon(errNoReport)
	for ev := range p.kp.Events() {
		m, ok := ev.(*kafka.Message)
		if !ok {
			continue // client-level errors: each message gets its own report
		}
		sd, ok := m.Opaque.(*Send)
		if !ok {
			continue
		}
		p.complete(sd, deliveredOffset(m), m.TopicPartition.Error)
	}
}

// complete records sd's completion with err, typed by SendOutcome.
func (p *Producer) complete(sd *Send, offset int64, err error) {
	p.sends.Complete(sd, SendOutcome(err, p.mayRetry), offset, err)
}

// Close flushes outstanding sends (up to ctx's deadline) and closes the
// producer. Sends without a delivery report by then complete as info. It
// returns an error when librdkafka's close did not return within closeGrace;
// the handle is then abandoned, and every send has its completion anyway.
func (p *Producer) Close(ctx context.Context) error {
	if !p.sends.End(ErrClosed) {
		return nil
	}
	p.sends.WaitHanded() // bounded: produce gives up once the sends end
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
		p.sends.Abandon(errNoReport)
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
// never sends again (Sends.Crash), queued messages are purged unsent, and
// the handle is destroyed in the background without a flush. A producer
// that is closing or crashed already is left alone.
func (p *Producer) Crash() {
	if !p.sends.Crash(ErrCrashed) {
		return
	}
	p.kp.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	go func() {
		p.sends.WaitHanded()
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
