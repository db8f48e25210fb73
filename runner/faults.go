package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/workers"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// schedule turns a scenario's fault list into a nemesis.Schedule and plays
// it: nemesis.Run starts and stops each fault on the timeline, records each
// start and stop, and heals everything when the schedule ends, the run is
// stopped, a fault fails or anything panics. Each fault is wrapped in a
// meteredFault that counts what it did for results.json.
type schedule struct {
	prov cluster.Provider
	// the workload's slots the client faults act on
	producers []*workers.ProducerSlot
	consumers []*workers.ConsumerSlot
	copiers   []*workers.CopierSlot
	txnQueues []*workers.TxnQueueSlot
	// pool is the worker processes the client faults act on instead,
	// when the clients run in their own
	pool  *proc.Pool
	steps nemesis.Schedule
	meter []*meteredFault // one per scenario fault, shared by its steps

	active atomic.Int64 // faults in effect now, for the progress line
	mu     sync.Mutex
	rng    *rand.Rand
	// awaiting is the processes with a crash requested and not yet
	// landed (under mu): a second request would land with the first
	// and be counted twice. confirming tracks the goroutines that wait
	// for requested crashes to land.
	awaiting   map[int64]bool
	confirming sync.WaitGroup
}

// kafkaRequestTimedOut is REQUEST_TIMED_OUT: what a broker answers when the
// write was appended but replication did not finish in time.
const kafkaRequestTimedOut = 7

// newSchedule builds the schedule, failing on faults the provider cannot
// inject: a run without the faults its scenario names would prove nothing.
func newSchedule(prov cluster.Provider, cl clients, s generators.Scenario) (*schedule, error) {
	sc := &schedule{prov: prov, rng: rand.New(rand.NewPCG(uint64(s.Seed), 2)), awaiting: map[int64]bool{}}
	switch w := cl.(type) {
	case *workers.Workload:
		sc.producers, sc.consumers, sc.copiers, sc.txnQueues = w.Producers(), w.Consumers(), w.Copiers(), w.TxnQueues()
	case *proc.Pool:
		sc.pool = w
	}
	cf := ClusterFaults{Provider: prov, Scenario: s, IntN: sc.intN}
	if err := cf.Unsupported(); err != nil {
		return nil, err
	}
	for i, f := range s.Nemesis {
		inner, err := cf.Fault(f)
		if inner == nil && err == nil {
			inner, err = sc.fault(f)
		}
		if err != nil {
			return nil, fmt.Errorf("nemesis[%d]: %w", i, err)
		}
		m := &meteredFault{Fault: inner, kind: f.Kind, index: i, active: &sc.active}
		sc.meter = append(sc.meter, m)
		sc.steps = append(sc.steps, Steps(f, m)...)
	}
	return sc, nil
}

// Steps places f, made as nf, on the timeline: a window for faults that
// hold, and for instantaneous ones a zero-length step at the start and
// then every Params.Every until the window closes.
func Steps(f generators.Fault, nf nemesis.Fault) nemesis.Schedule {
	if !generators.Instantaneous(f.Kind) {
		return nemesis.Schedule{{At: f.Start.D(), Duration: f.Duration.D(), Fault: nf}}
	}
	var out nemesis.Schedule
	for at := f.Start.D(); at <= f.End().D(); at += f.Params.Every.D() {
		out = append(out, nemesis.Step{At: at, Fault: nf})
		if f.Params.Every <= 0 {
			break
		}
	}
	return out
}

// run plays the schedule until it ends or ctx does; every fault is healed,
// or tried, when it returns. Its error is every fault that could not be
// healed, by name, and any other error of the schedule. The run's own end
// (ctx) is none: a fault then failing with the run's deadline ends the
// schedule quietly, and the steps due before that end that never started
// are named in their faults' stats. A schedule stopped while the run went
// on (a start or a heal failed, even with a deadline of its own) is a
// harness error naming every step that never ran.
func (sc *schedule) run(ctx context.Context, rec nemesis.Recorder) error {
	var opts []nemesis.Option
	if hc, ok := sc.prov.(cluster.HealthChecker); ok {
		// A fault counts as healed only once the cluster is healthy
		// again, as etcd's robustness suite checks around failpoints.
		opts = append(opts, nemesis.WithHealth(hc, nemesis.HealTimeout))
	}
	c := &course{run: ctx}
	for _, m := range sc.meter {
		m.course = c
	}
	began := time.Now()
	endedAt := make(chan time.Duration, 1)
	stop := context.AfterFunc(ctx, func() { endedAt <- time.Since(began) })
	err := nemesis.Run(ctx, sc.steps, rec, opts...)
	end := time.Duration(-1) // the run goes on
	if !stop() {
		end = <-endedAt
	}
	early := c.halted() || (end < 0 && err != nil)
	var errs []error
	for _, err := range topLevel(err) {
		// Heals come from the meters, which see every one: nemesis.Run
		// may return a failed heal joined with, or hidden behind, the
		// run's deadline.
		if (early || !onlyContext(err)) && !errors.Is(err, errUnhealed) {
			errs = append(errs, err)
		}
	}
	if missed := sc.neverRan(horizon(ctx, began, end, early)); early && len(missed) > 0 {
		errs = append(errs, fmt.Errorf("the schedule stopped before the run's end; never ran: %s", strings.Join(missed, ", ")))
	}
	for _, m := range sc.meter {
		errs = append(errs, m.unhealed()...)
	}
	return errors.Join(errs...)
}

// horizon is how far into the schedule its steps were due to run: to the
// run's end (end, since began), and for a schedule stopped early to the
// run's deadline (the steps it would have run).
func horizon(ctx context.Context, began time.Time, end time.Duration, early bool) time.Duration {
	if !early && end >= 0 {
		return end
	}
	if d, ok := ctx.Deadline(); ok {
		return d.Sub(began)
	}
	return time.Duration(math.MaxInt64)
}

// neverRan notes in each fault's stats its steps due before horizon that
// never started, and returns them named.
func (sc *schedule) neverRan(horizon time.Duration) []string {
	var out []string
	nth := map[*meteredFault]int{}
	for _, st := range sc.steps {
		m, ok := st.Fault.(*meteredFault)
		if !ok {
			continue
		}
		n := nth[m]
		nth[m]++
		if n < m.started() || st.At >= horizon {
			continue
		}
		m.neverRan(st.At)
		out = append(out, fmt.Sprintf("%s (nemesis[%d]) due at %v", m.kind, m.index, st.At))
	}
	return out
}

// course is what stopped a schedule's play: the first start or heal that
// failed while the run (run) went on. nemesis.Run stops at it; one failing
// once the run is over is the run's end.
type course struct {
	run  context.Context
	mu   sync.Mutex
	stop error
}

// halt notes err, a fault's start or heal that stopped the schedule; a
// fault played outside a schedule has no course.
func (c *course) halt(err error) {
	if c == nil || err == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop == nil && c.run.Err() == nil {
		c.stop = err
	}
}

func (c *course) halted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop != nil
}

// topLevel is the errors joined in err (err itself if it is no join).
func topLevel(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// onlyContext reports whether every error err wraps ends in a context
// error: the run ended, nothing else went wrong.
func onlyContext(err error) bool {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if !onlyContext(e) {
				return false
			}
		}
		return true
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			return onlyContext(inner)
		}
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// stats reports what each scenario fault did.
func (sc *schedule) stats() []FaultStat {
	sc.confirming.Wait() // each wait ends within crashEffectBound or with the run
	out := make([]FaultStat, len(sc.meter))
	for i, m := range sc.meter {
		out[i] = m.stat()
	}
	return out
}

func (sc *schedule) intN(n int) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.rng.IntN(n)
}

// fault makes the nemesis fault for one of the scenario's client faults,
// which act on the run's own workers (ClusterFaults makes the others),
// with its kind's builder (clientBuilders).
func (sc *schedule) fault(f generators.Fault) (nemesis.Fault, error) {
	b, ok := clientBuilders()[f.Kind]
	switch {
	case ok && sc.pool != nil:
		return b.procs(sc.pool, f), nil
	case ok:
		return b.inProcess(sc, f), nil
	}
	return nil, fmt.Errorf("fault kind %q has no nemesis in this build", f.Kind)
}

// crashProducer crashes a producer, a copier or a txn queue (both
// transactional producers), chosen among those it can act on now.
func (sc *schedule) crashProducer(ctx context.Context) (any, error) {
	var crash []func() (any, error)
	for _, slot := range sc.producers {
		if slot.Current() != nil {
			crash = append(crash, func() (any, error) {
				p, err := slot.Crash()
				if p == nil {
					return nil, err
				}
				return map[string]any{"processes": p.Processes()}, err
			})
		}
	}
	crash = append(crash, txnCrashes[workers.CopierClient](ctx, sc, sc.copiers, "copier")...)
	crash = append(crash, txnCrashes[workers.TxnQueueClient](ctx, sc, sc.txnQueues, "txn-queue")...)
	if len(crash) == 0 {
		return nil, workers.ErrNothingToCrash
	}
	return crash[sc.intN(len(crash))]()
}

// txnCrashable is a transactional worker crashProducer can ask to crash:
// a copier or a txn queue.
type txnCrashable interface {
	comparable
	Ended() bool
	NeedsFencing() bool
	Crashed() bool
	Process() int64
}

// txnCrashes are the crashes crashProducer may choose among the
// transactional workers of slots (role names them in the fault's detail).
// One still opening (its transactional producer waits for a coordinator
// while a broker is down), being replaced, or with a crash requested
// already is passed over: a step must not be spent on it while a producer
// runs. A worker only takes the request (its crash happens
// mid-transaction), so it counts once it has crashed.
func txnCrashes[T txnCrashable, S interface {
	Current() T
	Crash() (T, error)
}](ctx context.Context, sc *schedule, slots []S, role string) []func() (any, error) {
	var out []func() (any, error)
	var none T
	for _, slot := range slots {
		if t := slot.Current(); t != none && !t.Ended() && !t.NeedsFencing() && !sc.isAwaited(t.Process()) {
			out = append(out, func() (any, error) {
				t, err := slot.Crash()
				if err != nil {
					return nil, err
				}
				return map[string]any{role: t.Process(), "effect": "requested: counted when its crash op is recorded"},
					sc.await(ctx, t.Process(), t.Crashed)
			})
		}
	}
	return out
}

// crashConsumer asks a consumer to crash at point and counts once it has:
// the crash happens when its poll reaches the point.
func (sc *schedule) crashConsumer(ctx context.Context, point client.CrashPoint) (any, error) {
	slot := sc.crashable()
	if slot == nil {
		return nil, workers.ErrNothingToCrash
	}
	c, err := slot.Crash(point)
	if c == nil {
		return nil, err
	}
	detail := map[string]any{"process": c.Process(), "point": point.String(), "effect": "requested: counted when its crash op is recorded"}
	if err != nil {
		return detail, err
	}
	return detail, sc.await(ctx, c.Process(), c.Crashed)
}

// await returns an *awaitedCrash for process's requested crash: the fault
// is counted when the crash lands (see meteredFault.Start), while the
// schedule goes on; a crash lands when the worker reaches its point.
func (sc *schedule) await(ctx context.Context, process int64, crashed func() bool) error {
	sc.mu.Lock()
	sc.awaiting[process] = true
	sc.mu.Unlock()
	return &awaitedCrash{wait: func() error {
		defer func() {
			sc.mu.Lock()
			delete(sc.awaiting, process)
			sc.mu.Unlock()
		}()
		return tookEffect(ctx, crashed)
	}, track: &sc.confirming}
}

func (sc *schedule) isAwaited(process int64) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.awaiting[process]
}

// awaitedCrash is the "error" of a client fault that was requested and
// lands later: not a failure, a count deferred until wait returns.
type awaitedCrash struct {
	wait  func() error
	track *sync.WaitGroup
}

func (a *awaitedCrash) Error() string { return "crash requested; counted once it lands" }

func (sc *schedule) churn(context.Context) (any, error) {
	slot, c := sc.consumer()
	if c == nil {
		return nil, workers.ErrNothingToCrash
	}
	slot.Churn()
	return map[string]any{"left": c.Process()}, nil
}

// crashable picks a consumer slot whose consumer is running and has no
// crash requested already, or nil when there is none.
func (sc *schedule) crashable() *workers.ConsumerSlot {
	var free []*workers.ConsumerSlot
	for _, slot := range sc.consumers {
		if c := slot.Current(); c != nil && !c.Ended() && !sc.isAwaited(c.Process()) {
			free = append(free, slot)
		}
	}
	if len(free) == 0 {
		return nil
	}
	return free[sc.intN(len(free))]
}

// consumer picks a consumer slot and its current consumer (nil before the
// slot's first consumer started).
func (sc *schedule) consumer() (*workers.ConsumerSlot, workers.ConsumerClient) {
	if len(sc.consumers) == 0 {
		return nil, nil
	}
	slot := sc.consumers[sc.intN(len(sc.consumers))]
	return slot, slot.Current()
}

// errNotFired wraps every error of a client fault: the fault did not take
// effect, which is counted (not fired, the error listed in its stats), not
// a reason to stop the schedule.
var errNotFired = errors.New("client fault did not take effect")

// errUnhealed wraps a fault's failed heal: the run goes on to its final
// reads, but carries it as a harness error.
var errUnhealed = errors.New("could not be healed")

// crashEffectBound is how long a requested crash may take to happen: a
// consumer or copier crashes at a point of its next poll or transaction
// with records, which a running workload reaches within a few ops.
const crashEffectBound = 5 * time.Second

// tookEffect waits until crashed reports true, at most crashEffectBound
// or until ctx (the run) ends. A run that ended first leaves the crash
// unjudged, and the error says how long it was awaited: a caller that
// forgives a crash the run cut short can tell one requested just before
// the end from one that did not land for seconds.
func tookEffect(ctx context.Context, crashed func() bool) error {
	began := time.Now()
	wait, cancel := context.WithTimeout(ctx, crashEffectBound)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !crashed() {
		select {
		case <-wait.Done():
			switch {
			case crashed():
				return nil
			case ctx.Err() != nil:
				return fmt.Errorf("the run ended before the requested crash happened (awaited %v)",
					time.Since(began).Round(time.Millisecond))
			}
			return fmt.Errorf("the requested crash had not happened after %v", crashEffectBound)
		case <-tick.C:
		}
	}
	return nil
}

func crashPoint(p string) client.CrashPoint {
	switch p {
	case generators.CrashAfterCommit:
		return client.CrashAfterCommit
	case generators.CrashBeforeCommit:
		return client.CrashBeforeCommit
	}
	return client.CrashAnywhere
}

// clientFault is an instantaneous fault on the workload's clients; it
// cannot be undone, so Stop does nothing. Any error of do means it did not
// take effect (errNotFired).
type clientFault struct {
	name string
	do   func(context.Context) (any, error)
	mu   sync.Mutex
	last any
}

func (f *clientFault) Name() string               { return f.name }
func (f *clientFault) Stop(context.Context) error { return nil }

func (f *clientFault) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *clientFault) Start(ctx context.Context) error {
	d, err := f.do(ctx)
	f.mu.Lock()
	f.last = d
	f.mu.Unlock()
	var aw *awaitedCrash
	if errors.As(err, &aw) {
		return aw
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errNotFired, err)
	}
	return nil
}

// meteredFault counts a fault's activations and errors for results.json
// and the progress line. A client fault that did not take effect is
// counted, not raised: it must not stop the rest of the schedule. A heal
// that failed is kept for the run's harness error.
type meteredFault struct {
	nemesis.Fault
	kind   string
	index  int // in the scenario's nemesis list
	active *atomic.Int64
	course *course // the schedule playing it

	mu     sync.Mutex
	starts int // its steps started, in their order
	fired  int64
	on     bool
	errors []string
	heals  []error  // heals that failed
	missed []string // its steps that never started
}

// HealBudget is how long the kind's heal may need (its registry entry), so
// a slow heal is waited for rather than taken for a failed one.
func (m *meteredFault) HealBudget() time.Duration { return KindHealBudget(m.kind) }

// KindHealBudget is kind's heal budget in the registry (0 for a kind it
// does not know).
func KindHealBudget(kind string) time.Duration {
	k, _ := generators.LookupKind(kind)
	return k.HealBudget()
}

// Name is the scenario's kind, which nemesis.Run records as the op's
// "fault": the nemesis fault built for it may be named otherwise.
func (m *meteredFault) Name() string { return m.kind }

// Events names its ops by histories' convention for its kind, whatever the
// wrapped fault calls them.
func (m *meteredFault) Events() (start, stop string) {
	return histories.FaultEvents(m.kind, generators.Instantaneous(m.kind))
}

// Detail passes the wrapped fault's through.

func (m *meteredFault) Detail() any {
	if d, ok := m.Fault.(nemesis.Detailer); ok {
		return d.Detail()
	}
	return nil
}

func (m *meteredFault) Start(ctx context.Context) error {
	err := m.start(ctx)
	m.course.halt(err)
	return err
}

func (m *meteredFault) start(ctx context.Context) error {
	m.mu.Lock()
	m.starts++
	m.mu.Unlock()
	err := m.Fault.Start(ctx)
	var aw *awaitedCrash
	if errors.As(err, &aw) {
		aw.track.Add(1)
		go func() {
			defer aw.track.Done()
			m.landed(aw.wait())
		}()
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		if len(m.errors) < 5 {
			m.errors = append(m.errors, err.Error())
		}
		// a client fault that found no client (workers.ErrNothingToCrash)
		// is counted as an error of the fault, not of the run
		if errors.Is(err, workers.ErrNothingToCrash) || errors.Is(err, errNotFired) {
			return nil
		}
		return err
	}
	m.fired++
	if !m.on {
		m.on = true
		m.active.Add(1)
	}
	return nil
}

// landed counts a requested crash once it has landed, or lists why it did
// not as a fault error.
func (m *meteredFault) landed(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		if len(m.errors) < 5 {
			m.errors = append(m.errors, fmt.Errorf("%w: %w", errNotFired, err).Error())
		}
		return
	}
	m.fired++
}

func (m *meteredFault) Stop(ctx context.Context) error {
	err := m.stop(ctx)
	m.course.halt(err)
	return err
}

func (m *meteredFault) stop(ctx context.Context) error {
	err := m.Fault.Stop(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.on {
		m.on = false
		m.active.Add(-1)
	}
	if err == nil {
		return nil
	}
	if len(m.errors) < 5 {
		m.errors = append(m.errors, "heal: "+err.Error())
	}
	err = fmt.Errorf("fault %s (nemesis[%d]) %w: %w", m.kind, m.index, errUnhealed, err)
	if len(m.heals) < 5 {
		m.heals = append(m.heals, err)
	}
	return err
}

func (m *meteredFault) started() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.starts
}

// neverRan notes its step due at that never started.
func (m *meteredFault) neverRan(at time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.missed = append(m.missed, fmt.Sprintf("due at %v", at))
}

// unhealed is the fault's heals that failed.
func (m *meteredFault) unhealed() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.heals)
}

func (m *meteredFault) stat() FaultStat {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := FaultStat{Kind: m.kind, Fired: m.fired, Errors: slices.Clone(m.errors), NeverRan: slices.Clone(m.missed)}
	if h, ok := m.Fault.(nemesis.HitCounter); ok {
		st.Hits = int64(h.Hits())
	}
	if e, ok := m.Fault.(nemesis.Evidencer); ok {
		st.Evidence = e.Evidence()
	}
	return st
}
