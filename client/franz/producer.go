package franz

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
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
// value: the invoke before Produce, the completion from the promise.
//
// As in client.Producer, every record is made under mu, and a send is in
// inflight exactly between its invoke and its completion: whoever removes
// it records its completion, so each invoke gets one, and none after its
// lane's crash op.
type Producer struct {
	opts    ProducerOptions
	cl      *kgo.Client
	acks0   bool // acks=0: kgo makes offsets up, so none is recorded
	lanes   []int64
	free    chan int64    // lanes not in use; never holds more than len(lanes)
	stopped chan struct{} // closed at Crash or Close: no lane is handed out again
	sending sync.WaitGroup
	open    sync.WaitGroup // sends between invoke and completion

	mu       sync.Mutex
	state    state
	inflight map[*pending]struct{}
}

// state is where a Producer is in its life.
type state int

const (
	running state = iota
	closing
	crashed
)

// pending is one send between invoke and completion; it rides in its
// record's Context.
type pending struct {
	inv   *histories.Op
	key   histories.Key
	value int64
	then  func(histories.Type)
	// buffered is set once the record is in a partition's batch buffer,
	// from where a produce request may carry it (outcome.go).
	buffered atomic.Bool
}

// pendingKey is the record Context key of its pending send.
type pendingKey struct{}

func pendingOf(r *kgo.Record) *pending {
	ps, _ := r.Context.Value(pendingKey{}).(*pending)
	return ps
}

// bufferHook marks a record's send buffered.
type bufferHook struct{}

// OnProduceRecordPartitioned implements kgo.HookProduceRecordPartitioned.
func (bufferHook) OnProduceRecordPartitioned(r *kgo.Record, _ int32) {
	if ps := pendingOf(r); ps != nil {
		ps.buffered.Store(true)
	}
}

// NewProducer makes the kgo client; its lanes take fresh process ids. kgo
// connects lazily: a bad bootstrap shows as failing sends, not here.
func NewProducer(opts ProducerOptions) (*Producer, error) {
	if opts.Keys == nil || opts.Recorder == nil || opts.Processes == nil {
		return nil, errors.New("franz producer: Keys, Recorder and Processes are required")
	}
	opts.Lanes = max(opts.Lanes, 1)
	kopts, err := Options(opts.Config, opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(kopts, kgo.WithHooks(bufferHook{}))...)
	if err != nil {
		return nil, fmt.Errorf("franz producer: %w", err)
	}
	p := &Producer{opts: opts, cl: cl, acks0: opts.Config.Acks == "0", free: make(chan int64, opts.Lanes),
		stopped: make(chan struct{}), inflight: map[*pending]struct{}{}}
	for range opts.Lanes {
		id := opts.Processes.Next()
		p.lanes = append(p.lanes, id)
		p.free <- id
	}
	return p, nil
}

// Processes returns the process ids of the producer's lanes.
func (p *Producer) Processes() []int64 { return append([]int64(nil), p.lanes...) }

// SendAsync waits for a free lane, records the invoke and hands the record
// to kgo; then is called with the completion type. It returns an error only
// when nothing was recorded. ctx bounds the wait for a lane only: the
// record itself is never failed for ctx's sake.
func (p *Producer) SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error {
	tp, ok := p.opts.Keys.TP(key)
	if !ok {
		return fmt.Errorf("franz producer: key %d is not in the key map", key)
	}
	var lane int64
	select {
	case lane = <-p.free:
	case <-p.stopped:
		return p.stoppedErr()
	case <-ctx.Done():
		return ctx.Err()
	}
	ps := &pending{key: key, value: value, then: then}
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		return p.stoppedErr()
	}
	ps.inv = p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Invoke, F: histories.FSend,
		Mops: []histories.Mop{histories.Send(key, value)}})
	p.inflight[ps] = struct{}{}
	p.open.Add(1)
	// Crash and Close wait for sending before they close the client.
	p.sending.Add(1)
	p.mu.Unlock()
	defer p.sending.Done()
	rctx := context.WithValue(context.Background(), pendingKey{}, ps)
	r := &kgo.Record{Topic: *tp.Topic, Partition: tp.Partition, Value: strconv.AppendInt(nil, value, 10), Context: rctx}
	p.cl.Produce(rctx, r, p.promise)
	return nil
}

func (p *Producer) stoppedErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == crashed {
		return client.ErrCrashed
	}
	return client.ErrClosed
}

// promise records a send's completion; kgo calls promises one at a time.
func (p *Producer) promise(r *kgo.Record, err error) {
	ps := pendingOf(r)
	if ps == nil {
		return
	}
	offset := histories.NoOffset
	if err == nil && !p.acks0 && r.Offset >= 0 {
		offset = r.Offset
	}
	p.complete(ps, Outcome(err, ps.buffered.Load()), offset, err)
}

// complete records ps's completion unless it was completed already (by a
// crash or close), frees its lane while the producer runs, and tells the
// caller.
func (p *Producer) complete(ps *pending, t histories.Type, offset int64, err error) {
	p.mu.Lock()
	ok := p.completeLocked(ps, t, offset, err)
	release := ok && p.state == running
	p.mu.Unlock()
	if !ok {
		return
	}
	if release {
		p.free <- ps.inv.Process
	}
	if ps.then != nil {
		ps.then(t)
	}
}

// completeLocked records ps's completion if it is still in flight; called
// with mu held.
func (p *Producer) completeLocked(ps *pending, t histories.Type, offset int64, err error) bool {
	if _, ok := p.inflight[ps]; !ok {
		return false
	}
	delete(p.inflight, ps)
	defer p.open.Done()
	mop := histories.Send(ps.key, ps.value)
	mop.Offset = offset
	op := &histories.Op{Process: ps.inv.Process, Type: t, F: ps.inv.F, Mops: []histories.Mop{mop}}
	if err != nil {
		op.Error = err.Error()
	}
	p.opts.Recorder.Record(op)
	return true
}

// abandon completes every send still in flight as info with err, and
// returns them.
func (p *Producer) abandonLocked(err error) []*pending {
	out := make([]*pending, 0, len(p.inflight))
	for ps := range p.inflight {
		out = append(out, ps)
	}
	for _, ps := range out {
		p.completeLocked(ps, histories.Info, histories.NoOffset, err)
	}
	return out
}

func callThen(done []*pending) {
	for _, ps := range done {
		if ps.then != nil {
			ps.then(histories.Info)
		}
	}
}

// Close flushes outstanding sends (up to ctx's deadline) and closes the
// client, which fails what it still holds; sends whose promise has not
// come within closeGrace complete as info. It returns an error when kgo's
// close did not return within closeGrace.
func (p *Producer) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		return nil
	}
	p.state = closing
	close(p.stopped)
	p.mu.Unlock()
	p.sending.Wait()
	p.cl.Flush(ctx) // its error is ctx's: the sends left are failed below
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		p.cl.Close()
		p.open.Wait()
	}()
	select {
	case <-closed:
		return nil
	case <-time.After(closeGrace):
	}
	p.mu.Lock()
	done := p.abandonLocked(errNoPromise)
	p.mu.Unlock()
	callThen(done)
	return fmt.Errorf("franz producer: kgo close or its promises took over %s; client abandoned", closeGrace)
}

// Crash tears the producer down as a process crash would: in-flight sends
// complete as info (their fate is unknown), each lane records a crash op
// and never sends again, and the client is closed in the background
// without a flush (kgo fails what it still buffers; those promises find
// their sends completed already). A producer closing or crashed already
// is left alone.
func (p *Producer) Crash() {
	p.mu.Lock()
	if p.state != running {
		p.mu.Unlock()
		return
	}
	p.state = crashed
	close(p.stopped)
	done := p.abandonLocked(client.ErrCrashed)
	for _, lane := range p.lanes {
		p.opts.Recorder.Record(&histories.Op{Process: lane, Type: histories.Info, F: histories.FCrash})
	}
	p.mu.Unlock()
	callThen(done)
	go func() {
		p.sending.Wait()
		p.cl.Close()
	}()
}
