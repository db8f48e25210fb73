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
	logs      *client.Logs // librdkafka's log lines of every worker; nil: stderr

	values atomic.Int64 // the last value handed out: values are unique

	rngMu sync.Mutex
	rng   *rand.Rand

	producers []*producerSlot
	consumers []*consumerSlot
	copiers   []*copierSlot
	workers   []worker
	// stopBound is how long stop waits for the workers after the run's
	// end (workerStopBound; tests shorten it).
	stopBound time.Duration

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
		rng: rand.New(rand.NewPCG(uint64(s.Seed), 1)), stopBound: workerStopBound()}, nil
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
	for i, p := range w.producers {
		every := w.interval(wl.Mix.Send, wl.Producers)
		w.spawn(fmt.Sprintf("producer %d", i), func() { p.run(ctx, every) })
	}
	for i, c := range w.consumers {
		every := w.interval(max(wl.Mix.Poll, 1), wl.Consumers)
		w.spawn(fmt.Sprintf("consumer %d", i), func() { c.run(ctx, every) })
	}
	for _, c := range w.copiers {
		every := w.interval(max(wl.Mix.Txn, 1), wl.Copiers)
		c.done = w.spawn(fmt.Sprintf("copier %d", c.index), func() { c.run(ctx, every) })
	}
	return nil
}

// worker is one running worker goroutine: done is closed when it returns.
type worker struct {
	name string
	done chan struct{}
}

// spawn runs fn as a worker named name and returns its done channel.
func (w *workload) spawn(name string, fn func()) chan struct{} {
	done := make(chan struct{})
	w.workers = append(w.workers, worker{name: name, done: done})
	go func() {
		defer close(done)
		fn()
	}()
	return done
}

// workerStopBound bounds how long the workers may take to return once the
// run is over. Every client call they make is bounded: a copier's call by
// its timeout plus a grace (10s + 5s), after which it is abandoned as hung,
// and a step cut short by the run's end leaves its transaction to settle's
// fence. The worst a copier still needs is one call, a rewind and a close
// of two handles: 4 such bounds.
func workerStopBound() time.Duration {
	return 4 * (copierCallTimeout + client.HangGrace(copierCallTimeout))
}

// stop waits for the workers to return, all of them within stopBound, then
// closes them cleanly (the run is over: this is not a crash) and fences
// what copiers may have left open. A worker still running by then is left
// behind and named in a harness error: the run ends on time, and its final
// reads use fresh clients.
func (w *workload) stop(ctx context.Context) {
	for _, name := range w.wait(w.stopBound) {
		w.fail(fmt.Errorf("workload: %s did not return within %v of the run's end", name, w.stopBound))
	}
	for i, p := range w.producers {
		if err := p.close(ctx); err != nil {
			w.fail(fmt.Errorf("workload: producer %d: close: %w", i, err))
		}
	}
	for _, c := range w.copiers {
		c.settle(ctx)
	}
}

// wait waits for every worker up to bound in all and returns the names of
// those still running.
func (w *workload) wait(bound time.Duration) []string {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var stuck []string
	expired := false
	for _, wk := range w.workers {
		if !expired {
			select {
			case <-wk.done:
				continue
			case <-timer.C:
				expired = true
			}
		}
		select {
		case <-wk.done:
		default:
			stuck = append(stuck, wk.name)
		}
	}
	return stuck
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
		Keys: s.w.input, Recorder: s.w.rec, Processes: s.w.procs, Lanes: s.w.s.Workload.Lanes, Logs: s.w.logs})
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

// close flushes for up to 10s and closes; Producer.Close bounds its own
// wait for librdkafka's close.
func (s *producerSlot) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.current().Close(ctx)
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
		Keys: keys, Recorder: s.w.rec, Process: s.w.procs.Next(), Fencer: s.w.fencer, Logs: s.w.logs})
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

// crash asks the consumer to crash at point and returns it, so the caller
// can tell when it has; the poll loop replaces it.
func (s *consumerSlot) crash(point client.CrashPoint) (*client.Consumer, error) {
	c := s.current()
	if c == nil || c.Crashed() {
		return nil, errNothingToCrash // none yet, or one being replaced
	}
	return c, c.Crash(point)
}

// churn makes the member leave cleanly; a new member joins in its place.
func (s *consumerSlot) churn() {
	if c := s.current(); c != nil {
		c.Close()
	}
}
