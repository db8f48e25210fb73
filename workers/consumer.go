package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
	"github.com/kafkachaos/kafkachaos/model"
)

// ConsumerSlot is one consumer position: a consumer polls in it until it
// crashes or churns out, then a new one (new process id) takes over.
type ConsumerSlot struct {
	Slot[*client.Consumer]
	w *Workload
}

func (s *ConsumerSlot) open() (*client.Consumer, error) {
	w := s.w
	cfg := w.consumerConfig()
	keys := w.input
	if w.s.Consumer.CommitStrategy == model.CommitTransactional {
		keys = w.all
	}
	c, err := client.NewConsumer(client.ConsumerOptions{Bootstrap: w.opts.Bootstrap, Config: cfg,
		Keys: keys, Recorder: w.opts.Recorder, Process: w.procs.Next(), Fencer: w.opts.Fencer, Logs: w.opts.Logs})
	if err != nil {
		return nil, fmt.Errorf("workload: consumer: %w", err)
	}
	if cfg.Group != "" {
		err = c.Subscribe()
	} else {
		err = c.Assign(keys.Keys())
	}
	if err != nil && !errors.Is(err, client.ErrCrashed) {
		c.Close()
		return nil, fmt.Errorf("workload: consumer %d: %w", c.Process(), err)
	}
	s.Put(c)
	return c, nil
}

func (s *ConsumerSlot) run(ctx context.Context, every time.Duration) {
	for ctx.Err() == nil {
		c, err := s.open()
		if err != nil {
			s.w.fail(err)
			return
		}
		for ctxsleep.For(ctx, every) {
			err := c.Poll(ctx, s.w.s.Workload.PollBatch, 100*time.Millisecond)
			if errors.Is(err, client.ErrCrashed) {
				break // crashed or churned: a new consumer takes the slot
			}
		}
		if ctx.Err() != nil {
			c.Close()
		}
	}
}

// Crash asks the consumer to crash at point and returns it, so the caller
// can tell when it has (Consumer.Crashed); the poll loop replaces it. Its
// error is the consumer's refusal (a point it never reaches), or
// ErrNothingToCrash with no consumer returned.
func (s *ConsumerSlot) Crash(point client.CrashPoint) (*client.Consumer, error) {
	c := s.Current()
	if c == nil || c.Ended() {
		return nil, ErrNothingToCrash // none yet, or one being replaced
	}
	return c, c.Crash(point)
}

// Churn makes the member leave cleanly; a new member joins in its place.
func (s *ConsumerSlot) Churn() {
	if c := s.Current(); c != nil {
		c.Close()
	}
}
