package franz

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/franz/fate"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ProducerOptions configures a Producer.
type ProducerOptions struct {
	Bootstrap string
	Config    client.ProducerConfig
	Keys      *client.KeyMap
	Recorder  client.Recorder
	Processes *client.Processes
	// Lanes is how many sends may be in flight at once, each lane a
	// process of the history. 0 means 1.
	Lanes int
}

// closeGrace bounds the wait for kgo's close, and for the promises it
// owes, once the flush is over.
const closeGrace = 5 * time.Second

// errNoPromise completes a send whose promise had not come when the
// producer was closed: the record may or may not be in the log.
var errNoPromise = errors.New("franz producer: closed before the send's promise")

// Producer sends values through a kgo.Client and records one send op per
// value in its client.Sends: the invoke before Produce, the completion
// from the promise.
type Producer struct {
	sends *client.Sends
	keys  *client.KeyMap
	cl    *kgo.Client
	acks0 bool // acks=0: kgo makes offsets up, so none is recorded
}

// pending is one send in kgo's hands; it rides in its record's Context,
// beside the record's fate.Mark.
type pending struct {
	send *client.Send
	mark *fate.Mark
}

// pendingKey is the record Context key of its pending send.
type pendingKey struct{}

// NewProducer makes the kgo client; its lanes take fresh process ids. kgo
// connects lazily: a bad bootstrap shows as failing sends, not here.
func NewProducer(opts ProducerOptions) (*Producer, error) {
	if opts.Keys == nil || opts.Recorder == nil || opts.Processes == nil {
		return nil, errors.New("franz producer: Keys, Recorder and Processes are required")
	}
	kopts, err := Options(opts.Config, opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(kopts, kgo.WithHooks(fate.Hook()))...)
	if err != nil {
		return nil, fmt.Errorf("franz producer: %w", err)
	}
	return &Producer{sends: client.NewSends(opts.Recorder, opts.Processes, opts.Lanes), keys: opts.Keys, cl: cl,
		acks0: opts.Config.Acks == "0"}, nil
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return p.sends.Processes() }

// SendAsync waits for a free lane, records the invoke and hands the record
// to kgo; then is called with the completion type. It returns an error only
// when nothing was recorded. ctx bounds the wait for a lane only: the
// record itself is never failed for ctx's sake.
func (p *Producer) SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error {
	tp, ok := p.keys.TP(key)
	if !ok {
		return fmt.Errorf("franz producer: key %d is not in the key map", key)
	}
	sd, err := p.sends.Begin(ctx, key, value, then)
	if err != nil {
		return err
	}
	defer p.sends.Handed()
	rctx, mark := fate.WithMark(context.Background())
	rctx = context.WithValue(rctx, pendingKey{}, &pending{send: sd, mark: mark})
	r := &kgo.Record{Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.AppendInt(nil, value, 10), Context: rctx}
	p.cl.Produce(rctx, r, p.promise)
	return nil
}

// promise records a send's completion; kgo calls promises one at a time.
func (p *Producer) promise(r *kgo.Record, err error) {
	ps, ok := r.Context.Value(pendingKey{}).(*pending)
	if !ok {
		return
	}
	offset := histories.NoOffset
	if !p.acks0 {
		offset = r.Offset
	}
	p.sends.Complete(ps.send, fate.Outcome(err, ps.mark.Buffered()), offset, err)
}

// Close flushes outstanding sends (up to ctx's deadline) and closes the
// client, which fails what it still holds; sends whose promise has not
// come within closeGrace complete as info. It returns an error when kgo's
// close did not return within closeGrace.
func (p *Producer) Close(ctx context.Context) error {
	if !p.sends.End(client.ErrClosed) {
		return nil
	}
	p.sends.WaitHanded()
	p.cl.Flush(ctx) // its error is ctx's: the sends left are failed below
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		p.cl.Close()
		p.sends.WaitCompleted()
	}()
	select {
	case <-closed:
		return nil
	case <-time.After(closeGrace):
	}
	p.sends.Abandon(errNoPromise)
	return fmt.Errorf("franz producer: kgo close or its promises took over %s; client abandoned", closeGrace)
}

// Crash tears the producer down as a process crash would: in-flight sends
// complete as info (their fate is unknown), each lane records a crash op
// and never sends again, and the client is closed in the background
// without a flush (kgo fails what it still buffers; those promises find
// their sends completed already). A producer closing or crashed already
// is left alone.
func (p *Producer) Crash() {
	if !p.sends.Crash(client.ErrCrashed) {
		return
	}
	go func() {
		p.sends.WaitHanded()
		p.cl.Close()
	}()
}
