package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/franz"
	"github.com/kafkachaos/kafkachaos/client/java"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// ProducerClient is a producer under test, of the client the scenario
// names for producers: client.Producer (librdkafka), java.Producer (the
// Java client, in a JVM of its own) or franz.Producer (franz-go, in
// process). Each records its sends itself.
type ProducerClient interface {
	// SendAsync records the send's invoke and starts it; then gets its
	// completion type. An error means nothing was recorded
	// (client.ErrCrashed once crashed).
	SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error
	// Processes are the history's processes of its lanes.
	Processes() []int64
	// Crash ends it as a crashed process: open sends info, a crash op
	// per lane, no flush.
	Crash()
	// Close flushes until ctx ends, then closes; every send completes.
	Close(ctx context.Context) error
}

// ProducerSlot is one producer position of the workload.
type ProducerSlot struct {
	Slot[ProducerClient]
	w *Workload
}

func (s *ProducerSlot) replace() error {
	p, err := s.w.newProducer()
	if err != nil {
		return fmt.Errorf("workload: producer: %w", err)
	}
	s.Put(p)
	return nil
}

// newProducer opens a producer of the scenario's producer client.
func (w *Workload) newProducer() (ProducerClient, error) {
	switch w.s.ClientOf(generators.RoleProducer) {
	case generators.ClientJava:
		return java.NewProducer(context.Background(), java.ProducerOptions{Bootstrap: w.opts.Bootstrap,
			Config: w.producerConfig(), Version: w.s.JavaVersion(), Keys: w.input, Recorder: w.opts.Recorder,
			Processes: w.procs, Lanes: w.s.Workload.Lanes, Logs: w.opts.Logs})
	case generators.ClientFranzGo:
		return franz.NewProducer(franz.ProducerOptions{Bootstrap: w.opts.Bootstrap, Config: w.producerConfig(),
			Keys: w.input, Recorder: w.opts.Recorder, Processes: w.procs, Lanes: w.s.Workload.Lanes})
	}
	return client.NewProducer(client.ProducerOptions{Bootstrap: w.opts.Bootstrap, Config: w.producerConfig(),
		Keys: w.input, Recorder: w.opts.Recorder, Processes: w.procs, Lanes: w.s.Workload.Lanes, Logs: w.opts.Logs})
}

func (s *ProducerSlot) run(ctx context.Context, every time.Duration) {
	limit := int64(s.w.s.Workload.MaxValues)
	for ctxsleep.For(ctx, every) {
		v := s.w.nextValue()
		if limit > 0 && v > limit {
			return
		}
		key := histories.Key(s.w.intN(s.w.s.Keys.Count))
		err := s.Current().SendAsync(ctx, key, v, nil)
		switch {
		case err == nil, ctx.Err() != nil:
		case errors.Is(err, client.ErrCrashed):
			// the slot is being replaced by Crash; the value was
			// never recorded, so it is simply not used.
		default:
			s.w.fail(err)
			return
		}
	}
}

// Crash tears the producer down at once and puts a new one in its place;
// it returns the crashed producer (nil when the slot had none) and the
// error of opening its successor.
func (s *ProducerSlot) Crash() (ProducerClient, error) {
	p := s.Current()
	if p == nil {
		return nil, ErrNothingToCrash
	}
	p.Crash()
	return p, s.replace()
}

// close flushes for up to 10s and closes; each client bounds its own
// wait for its close.
func (s *ProducerSlot) close(ctx context.Context) error {
	p := s.Current()
	if p == nil {
		return nil // Start failed before this slot's producer opened
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Close(ctx)
}
