package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// workload runs a scenario's clients until its context ends. Every worker
// lives in a slot; a crashed worker is replaced in its slot by a new one
// with new process ids, as a supervisor restarts a crashed service.
type workload struct {
	s         generators.Scenario
	bootstrap string
	input     *client.KeyMap // keys producers write and consumers read
	rec       client.Recorder
	procs     *client.Processes
	fencer    client.MemberFencer

	values atomic.Int64 // the last value handed out: values are unique

	rngMu sync.Mutex
	rng   *rand.Rand

	producers []*producerSlot
	consumers []*consumerSlot
	copiers   []*copierSlot
	wg        sync.WaitGroup

	errMu sync.Mutex
	errs  []error
}

// keyMapOf is the client's key map of scenario.json's keys.map.
func keyMapOf(m map[string]generators.TopicPartition) (*client.KeyMap, error) {
	out := make(map[histories.Key]client.TopicPartition, len(m))
	for k, tp := range m {
		key, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("keys.map: key %q: %w", k, err)
		}
		out[key] = client.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}
	}
	return client.NewKeyMap(out)
}

func newWorkload(s generators.Scenario, bootstrap string, rec client.Recorder, fencer client.MemberFencer) (*workload, error) {
	input := make(map[histories.Key]client.TopicPartition, s.Keys.Count)
	for i := range s.Keys.Count {
		tp := s.Keys.Map[strconv.Itoa(i)]
		input[histories.Key(i)] = client.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}
	}
	km, err := client.NewKeyMap(input)
	if err != nil {
		return nil, err
	}
	return &workload{s: s, bootstrap: bootstrap, input: km, rec: rec, procs: &client.Processes{}, fencer: fencer,
		rng: rand.New(rand.NewPCG(uint64(s.Seed), 1))}, nil
}

func (w *workload) intN(n int) int {
	w.rngMu.Lock()
	defer w.rngMu.Unlock()
	return w.rng.IntN(n)
}

// fail notes a harness error (not an op outcome: those are in the history).
func (w *workload) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if len(w.errs) < 20 {
		w.errs = append(w.errs, err)
	}
}

func (w *workload) err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return errors.Join(w.errs...)
}

// interval is the pause between two ops of one worker of a kind, so that
// the run's ops follow the scenario's rate and mix; 0 means no pause.
func (w *workload) interval(weight, workers int) time.Duration {
	wl := w.s.Workload
	total := 0
	if wl.Producers > 0 {
		total += wl.Mix.Send
	}
	if wl.Consumers > 0 {
		total += wl.Mix.Poll
	}
	if wl.Copiers > 0 {
		total += wl.Mix.Txn
	}
	if wl.Rate <= 0 || weight <= 0 || total == 0 {
		return 0
	}
	perWorker := wl.Rate * float64(weight) / float64(total) / float64(workers)
	return time.Duration(float64(time.Second) / perWorker)
}

// start launches every worker; they stop when ctx ends.
func (w *workload) start(ctx context.Context) error {
	wl := w.s.Workload
	for range wl.Producers {
		slot := &producerSlot{w: w}
		if err := slot.replace(); err != nil {
			return err
		}
		w.producers = append(w.producers, slot)
	}
	for range wl.Consumers {
		w.consumers = append(w.consumers, &consumerSlot{w: w})
	}
	for i := range wl.Copiers {
		w.copiers = append(w.copiers, &copierSlot{w: w, index: i})
	}
	for _, p := range w.producers {
		w.wg.Add(1)
		go p.run(ctx, w.interval(wl.Mix.Send, wl.Producers))
	}
	for _, c := range w.consumers {
		w.wg.Add(1)
		go c.run(ctx, w.interval(max(wl.Mix.Poll, 1), wl.Consumers))
	}
	for _, c := range w.copiers {
		w.wg.Add(1)
		go c.run(ctx, w.interval(max(wl.Mix.Txn, 1), wl.Copiers))
	}
	return nil
}

// stop waits for the workers to return and closes them cleanly: the run is
// over, this is not a crash.
func (w *workload) stop(ctx context.Context) {
	w.wg.Wait()
	for _, p := range w.producers {
		p.close(ctx)
	}
	for _, c := range w.copiers {
		c.settle(ctx)
	}
}

// pace waits d (or not at all), reporting false when ctx ended.
func pace(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (w *workload) producerConfig() client.ProducerConfig {
	p := w.s.Producer
	retries := p.Retries
	return client.ProducerConfig{
		Acks:            p.Acks.String(),
		Retries:         &retries,
		Idempotence:     p.Idempotent(),
		MaxInFlight:     p.MaxInFlight,
		DeliveryTimeout: p.DeliveryTimeout.D(),
		RequestTimeout:  p.RequestTimeout.D(),
		Linger:          p.Linger.D(),
	}
}

// consumerConfig is the consumers' client config. With copiers the
// consumer hop is the copiers' (the transactional strategy); the plain
// consumers then only watch: they assign every key, input and output, and
// commit nothing.
func (w *workload) consumerConfig() client.ConsumerConfig {
	c := w.s.Consumer
	cfg := client.ConsumerConfig{ReadCommitted: c.IsolationLevel == model.ReadCommitted,
		SessionTimeout: c.SessionTimeout.D(), AutoCommitEach: c.AutoCommitInterval.D(), Commit: client.CommitNone}
	if w.s.Workload.Mode == generators.ModeGroup && c.CommitStrategy != model.CommitTransactional {
		cfg.Group = w.s.Workload.Group
		cfg.Commit = client.CommitStrategy(c.CommitStrategy)
	}
	return cfg
}

// producerSlot is one producer position of the workload.
type producerSlot struct {
	w  *workload
	mu sync.Mutex
	p  *client.Producer
}

func (s *producerSlot) replace() error {
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: s.w.bootstrap, Config: s.w.producerConfig(),
		Keys: s.w.input, Recorder: s.w.rec, Processes: s.w.procs, Lanes: s.w.s.Workload.Lanes})
	if err != nil {
		return fmt.Errorf("workload: producer: %w", err)
	}
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
	return nil
}

func (s *producerSlot) current() *client.Producer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

func (s *producerSlot) run(ctx context.Context, every time.Duration) {
	defer s.w.wg.Done()
	limit := int64(s.w.s.Workload.MaxValues)
	for pace(ctx, every) {
		v := s.w.values.Add(1)
		if limit > 0 && v > limit {
			return
		}
		key := histories.Key(s.w.intN(s.w.s.Keys.Count))
		err := s.current().SendAsync(ctx, key, v, nil)
		switch {
		case err == nil, ctx.Err() != nil:
		case errors.Is(err, client.ErrCrashed):
			// the slot is being replaced by crash(); the value was
			// never recorded, so it is simply not used.
		default:
			s.w.fail(err)
			return
		}
	}
}

// crash tears the producer down and puts a new one in its place.
func (s *producerSlot) crash() error {
	s.current().Crash()
	return s.replace()
}

func (s *producerSlot) close(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s.current().Close(ctx)
}

// consumerSlot is one consumer position: a consumer polls in it until it
// crashes or churns out, then a new one (new process id) takes over.
type consumerSlot struct {
	w  *workload
	mu sync.Mutex
	c  *client.Consumer
}

func (s *consumerSlot) current() *client.Consumer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}

func (s *consumerSlot) open() (*client.Consumer, error) {
	cfg := s.w.consumerConfig()
	keys := s.w.input
	if s.w.s.Consumer.CommitStrategy == model.CommitTransactional {
		all, err := keyMapOf(s.w.s.Keys.Map)
		if err != nil {
			return nil, err
		}
		keys = all
	}
	c, err := client.NewConsumer(client.ConsumerOptions{Bootstrap: s.w.bootstrap, Config: cfg,
		Keys: keys, Recorder: s.w.rec, Process: s.w.procs.Next(), Fencer: s.w.fencer})
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
	s.mu.Lock()
	s.c = c
	s.mu.Unlock()
	return c, nil
}

func (s *consumerSlot) run(ctx context.Context, every time.Duration) {
	defer s.w.wg.Done()
	for ctx.Err() == nil {
		c, err := s.open()
		if err != nil {
			s.w.fail(err)
			return
		}
		for pace(ctx, every) {
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

// crash asks the consumer to crash at point; the poll loop replaces it.
func (s *consumerSlot) crash(point client.CrashPoint) error {
	if c := s.current(); c != nil {
		return c.Crash(point)
	}
	return errNothingToCrash
}

// churn makes the member leave cleanly; a new member joins in its place.
func (s *consumerSlot) churn() {
	if c := s.current(); c != nil {
		c.Close()
	}
}
