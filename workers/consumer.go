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
	"github.com/kafkachaos/kafkachaos/model"
)

// ConsumerClient is a consumer under test, of the client the scenario
// names for consumers: client.Consumer (librdkafka) or java.Consumer (the
// Java client, in a JVM of its own) or franz.Consumer (franz-go, in
// process). Each is one process of the history
// and records its ops itself, the same ops for the same strategy.
type ConsumerClient interface {
	Process() int64
	// Subscribe joins the scenario's group; Assign reads keys from their
	// beginning without one.
	Subscribe() error
	Assign(keys []histories.Key) error
	// Poll runs one poll op (and the commit its strategy makes); an error
	// matching client.ErrCrashed means the consumer has ended.
	Poll(ctx context.Context, max int, wait time.Duration) error
	// Crash asks for a crash at point, refusing a point the consumer
	// never reaches; Crashed tells when it has landed.
	Crash(point client.CrashPoint) error
	Crashed() bool
	// Ended: crashed, closed or abandoned; no op of its process follows.
	Ended() bool
	// Close leaves cleanly.
	Close() error
}

// ConsumerSlot is one consumer position: a consumer polls in it until it
// crashes or churns out, then a new one (new process id) takes over.
type ConsumerSlot struct {
	Slot[ConsumerClient]
	w *Workload
}

func (s *ConsumerSlot) open() (ConsumerClient, error) {
	w := s.w
	keys := w.input
	if w.s.Consumer.CommitStrategy == model.CommitTransactional {
		keys = w.all
	}
	c, err := w.newConsumer(keys)
	if err != nil {
		return nil, fmt.Errorf("workload: consumer: %w", err)
	}
	cfg := w.consumerConfig()
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

// newConsumer opens a consumer of the scenario's consumer client on keys,
// as a new process.
func (w *Workload) newConsumer(keys *client.KeyMap) (ConsumerClient, error) {
	cfg := w.consumerConfig()
	switch w.s.ClientOf(generators.RoleConsumer) {
	case generators.ClientJava:
		return java.NewConsumer(context.Background(), java.ConsumerOptions{Bootstrap: w.opts.Bootstrap, Config: cfg,
			Version: w.s.JavaVersion(), Keys: keys, Recorder: w.opts.Recorder, Process: w.procs.Next(), Logs: w.opts.Logs})
	case generators.ClientFranzGo:
		return franz.NewConsumer(franz.ConsumerOpts{Bootstrap: w.opts.Bootstrap, Config: cfg, Keys: keys,
			Recorder: w.opts.Recorder, Process: w.procs.Next()})
	}
	return client.NewConsumer(client.ConsumerOptions{Bootstrap: w.opts.Bootstrap, Config: cfg,
		Keys: keys, Recorder: w.opts.Recorder, Process: w.procs.Next(), Fencer: w.opts.Fencer, Logs: w.opts.Logs})
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
func (s *ConsumerSlot) Crash(point client.CrashPoint) (ConsumerClient, error) {
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
