package workers

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

// Options are what a workload needs besides its scenario.
type Options struct {
	Bootstrap string
	Recorder  client.Recorder
	// Fencer makes a consumer's crash honest for its group; nil: none.
	Fencer client.MemberFencer
	// Logs takes librdkafka's log lines of every worker; nil: stderr.
	Logs *client.Logs
	// Only, when set, makes the workload that one worker of the
	// scenario's: a worker process runs one (see workers/proc).
	Only *Position
	// Values and Processes hand out the run's values and process ids
	// when the workload is not the run's only one (a worker process's);
	// nil: the workload's own counters.
	Values    func() int64
	Processes *client.Processes
}

// Position is one worker of a scenario's workload: its role
// (generators.RoleProducer, RoleConsumer or RoleCopier) and its index
// among the workers of that role.
type Position struct {
	Role  string `json:"role"`
	Index int    `json:"index"`
}

func (p Position) String() string { return fmt.Sprintf("%s %d", p.Role, p.Index) }

// Workload runs a scenario's clients until its context ends, every worker
// in a slot of its kind.
type Workload struct {
	s     generators.Scenario
	opts  Options
	input *client.KeyMap // keys producers write and consumers read
	all   *client.KeyMap // every key, input and output (scenario.json's keys.map)
	procs *client.Processes

	values atomic.Int64 // the last value handed out: values are unique

	rngMu sync.Mutex
	rng   *rand.Rand

	producers []*ProducerSlot
	consumers []*ConsumerSlot
	copiers   []*CopierSlot
	txnQueues []*TxnQueueSlot
	running   []worker
	// stopBound is how long Stop waits for the workers after the run's
	// end (workerStopBound; tests shorten it).
	stopBound time.Duration

	errMu sync.Mutex
	errs  []error
}

// New makes the workload of s and its (empty) slots; Start fills them.
func New(s generators.Scenario, opts Options) (*Workload, error) {
	input := make(map[histories.Key]client.TopicPartition, s.Keys.Count)
	for i := range s.Keys.Count {
		tp := s.Keys.Map[strconv.Itoa(i)]
		input[histories.Key(i)] = client.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}
	}
	km, err := client.NewKeyMap(input)
	if err != nil {
		return nil, err
	}
	all, err := KeyMap(s.Keys.Map)
	if err != nil {
		return nil, err
	}
	w := &Workload{s: s, opts: opts, input: km, all: all, procs: opts.Processes,
		rng: rand.New(rand.NewPCG(uint64(s.Seed), 1)), stopBound: workerStopBound()}
	if w.procs == nil {
		w.procs = &client.Processes{}
	}
	if opts.Only != nil {
		// each worker process draws its own keys
		w.rng = rand.New(rand.NewPCG(uint64(s.Seed), 2+uint64(len(opts.Only.Role))<<16+uint64(opts.Only.Index)))
	}
	for i := range s.Workload.Producers {
		if w.has(generators.RoleProducer, i) {
			w.producers = append(w.producers, &ProducerSlot{w: w})
		}
	}
	for i := range s.Workload.Consumers {
		if w.has(generators.RoleConsumer, i) {
			w.consumers = append(w.consumers, &ConsumerSlot{w: w})
		}
	}
	for i := range s.Workload.Copiers {
		if w.has(generators.RoleCopier, i) {
			w.copiers = append(w.copiers, &CopierSlot{w: w, index: i})
		}
	}
	w.txnQueues = newTxnQueueSlots(w)
	return w, nil
}

// has reports whether the workload runs worker index of role.
func (w *Workload) has(role string, index int) bool {
	return w.opts.Only == nil || *w.opts.Only == Position{Role: role, Index: index}
}

// nextValue is a value no worker of the run has sent.
func (w *Workload) nextValue() int64 {
	if w.opts.Values != nil {
		return w.opts.Values()
	}
	return w.values.Add(1)
}

// KeyMap is the client's key map of scenario.json's keys.map.
func KeyMap(m map[string]generators.TopicPartition) (*client.KeyMap, error) {
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

// Producers, Consumers and Copiers are the workload's slots, for the faults
// that act on clients.
func (w *Workload) Producers() []*ProducerSlot { return w.producers }
func (w *Workload) Consumers() []*ConsumerSlot { return w.consumers }
func (w *Workload) Copiers() []*CopierSlot     { return w.copiers }

// NextProcess is a process id no worker of the workload has used, for a
// client of the run outside it (the final reads).
func (w *Workload) NextProcess() int64 { return w.procs.Next() }

func (w *Workload) intN(n int) int {
	w.rngMu.Lock()
	defer w.rngMu.Unlock()
	return w.rng.IntN(n)
}

// fail notes a harness error (not an op outcome: those are in the history).
func (w *Workload) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if len(w.errs) < 20 {
		w.errs = append(w.errs, err)
	}
}

// Err is the harness errors the workers met, joined.
func (w *Workload) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return errors.Join(w.errs...)
}

// interval is the pause between two ops of one worker of a kind, so that
// the run's ops follow the scenario's rate and mix; 0 means no pause.
func (w *Workload) interval(weight, workers int) time.Duration {
	wl := w.s.Workload
	total := 0
	if wl.Producers > 0 {
		total += wl.Mix.Send
	}
	if wl.Consumers > 0 {
		total += wl.Mix.Poll
	}
	if wl.Copiers+wl.TxnQueues > 0 {
		total += wl.Mix.Txn
	}
	if wl.Rate <= 0 || weight <= 0 || total == 0 {
		return 0
	}
	perWorker := wl.Rate * float64(weight) / float64(total) / float64(workers)
	return time.Duration(float64(time.Second) / perWorker)
}

// Start opens the producers and launches every worker; they stop when ctx
// ends. After an error, Stop still ends what started.
func (w *Workload) Start(ctx context.Context) error {
	wl := w.s.Workload
	for _, p := range w.producers {
		if err := p.replace(); err != nil {
			return err
		}
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
	w.startTxnQueues(ctx)
	return nil
}

// worker is one running worker goroutine: done is closed when it returns.
type worker struct {
	name string
	done chan struct{}
}

// spawn runs fn as a worker named name and returns its done channel.
func (w *Workload) spawn(name string, fn func()) chan struct{} {
	done := make(chan struct{})
	w.running = append(w.running, worker{name: name, done: done})
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

// Stop waits for the workers to return, all of them within stopBound, then
// closes them cleanly (the run is over: this is not a crash) and fences
// what copiers may have left open. A worker still running by then is left
// behind and named in a harness error (Err): the run ends on time, and its
// final reads use fresh clients.
func (w *Workload) Stop(ctx context.Context) {
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
	w.settleTxnQueues(ctx)
}

// wait waits for every worker up to bound in all and returns the names of
// those still running.
func (w *Workload) wait(bound time.Duration) []string {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var stuck []string
	expired := false
	for _, wk := range w.running {
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

func (w *Workload) producerConfig() client.ProducerConfig {
	p := w.s.Producer
	retries := p.Retries
	return client.ProducerConfig{
		Acks:            p.Acks.String(),
		Retries:         &retries,
		Idempotence:     p.Idempotent(),
		MaxInFlight:     p.MaxInFlight,
		DeliveryTimeout: p.DeliveryTimeout.D(),
		RequestTimeout:  p.RequestTimeout.D(),
		SocketTimeout:   p.SocketTimeout.D(),
		Linger:          p.Linger.D(),
	}
}

// consumerConfig is the consumers' client config. With transactional
// copiers the consumer hop is the copiers' (the transactional strategy);
// the plain consumers then only watch: they assign every key, input and
// output, and commit nothing.
func (w *Workload) consumerConfig() client.ConsumerConfig {
	c := w.s.Consumer
	cfg := client.ConsumerConfig{ReadCommitted: c.IsolationLevel == model.ReadCommitted,
		SessionTimeout: c.SessionTimeout.D(), AutoCommitEach: c.AutoCommitInterval.D(), MaxPollInterval: c.MaxPollInterval.D(),
		Commit: client.CommitNone}
	if w.s.Workload.Mode == generators.ModeGroup && c.CommitStrategy != model.CommitTransactional {
		cfg.Group = w.s.Workload.Group
		cfg.Commit = client.CommitStrategy(c.CommitStrategy)
		cfg.GroupProtocol = c.GroupProtocol
	}
	return cfg
}

// ErrNothingToCrash is a slot with no client a fault could act on: none
// yet, or one being replaced, or one whose crash is under way.
var ErrNothingToCrash = errors.New("no client to act on")
