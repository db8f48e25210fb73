package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// ProducerSlot is one producer position of the workload.
type ProducerSlot struct {
	Slot[*client.Producer]
	w *Workload
}

func (s *ProducerSlot) replace() error {
	w := s.w
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: w.opts.Bootstrap, Config: w.producerConfig(),
		Keys: w.input, Recorder: w.opts.Recorder, Processes: w.procs, Lanes: w.s.Workload.Lanes, Logs: w.opts.Logs})
	if err != nil {
		return fmt.Errorf("workload: producer: %w", err)
	}
	s.Put(p)
	return nil
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
func (s *ProducerSlot) Crash() (*client.Producer, error) {
	p := s.Current()
	if p == nil {
		return nil, ErrNothingToCrash
	}
	p.Crash()
	return p, s.replace()
}

// close flushes for up to 10s and closes; Producer.Close bounds its own
// wait for librdkafka's close.
func (s *ProducerSlot) close(ctx context.Context) error {
	p := s.Current()
	if p == nil {
		return nil // Start failed before this slot's producer opened
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Close(ctx)
}
