package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// schedule plays a scenario's nemesis schedule against the cluster and the
// workload: each fault starts at its offset, holds its window and is healed
// when the window closes, when the run is stopped, on error and on panic.
// Every start and stop is a nemesis op in the history ("<kind>-start" and
// "<kind>-stop", or kill/restart, so the report can draw the windows;
// instantaneous faults are one op each).
type schedule struct {
	prov   cluster.Provider
	rec    *histories.Recorder
	w      *workload
	faults []generators.Fault
	topics []string

	active atomic.Int64 // windows open now, for the progress line
	mu     sync.Mutex
	rng    *rand.Rand
	stats  []FaultStat
	wg     sync.WaitGroup
}

// kafkaRequestTimedOut is REQUEST_TIMED_OUT: what a broker answers when the
// write was appended but replication did not finish in time.
const kafkaRequestTimedOut = 7

func newSchedule(prov cluster.Provider, rec *histories.Recorder, w *workload, s generators.Scenario) *schedule {
	sc := &schedule{prov: prov, rec: rec, w: w, faults: s.Nemesis, rng: rand.New(rand.NewPCG(uint64(s.Seed), 2)),
		stats: make([]FaultStat, len(s.Nemesis)), topics: []string{s.Keys.Topic}}
	if s.Keys.OutputTopic != "" {
		sc.topics = append(sc.topics, s.Keys.OutputTopic)
	}
	for i, f := range s.Nemesis {
		sc.stats[i].Kind = f.Kind
	}
	return sc
}

// check reports faults the provider cannot inject, before anything runs.
func (sc *schedule) check() error {
	for i, f := range sc.faults {
		if c := generators.KindCapability(f.Kind); c != "" && !cluster.Supports(sc.prov, cluster.Capability(c)) {
			return fmt.Errorf("nemesis[%d]: %s needs capability %q, which cluster provider %q lacks", i, f.Kind, c, sc.prov.Name())
		}
	}
	return nil
}

// start launches every fault relative to t0; ctx's end heals everything.
func (sc *schedule) start(ctx context.Context, t0 time.Time) {
	for i := range sc.faults {
		sc.wg.Add(1)
		go sc.one(ctx, t0, i)
	}
}

// wait returns once every fault is healed.
func (sc *schedule) wait() []FaultStat {
	sc.wg.Wait()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return slices.Clone(sc.stats)
}

func (sc *schedule) note(i int, fired, hits int64, err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.stats[i].Fired += fired
	sc.stats[i].Hits += hits
	if err != nil && len(sc.stats[i].Errors) < 5 {
		sc.stats[i].Errors = append(sc.stats[i].Errors, err.Error())
	}
}

func (sc *schedule) one(ctx context.Context, t0 time.Time, i int) {
	defer sc.wg.Done()
	f := sc.faults[i]
	defer func() {
		if p := recover(); p != nil {
			sc.note(i, 0, 0, fmt.Errorf("panic: %v", p))
		}
	}()
	if !sleepUntil(ctx, t0.Add(f.Start.D())) {
		return
	}
	end := t0.Add(f.End().D())
	if instant(f.Kind) {
		for {
			sc.note(i, 1, 0, sc.fire(f))
			if f.Params.Every <= 0 || !sleepUntil(ctx, time.Now().Add(f.Params.Every.D())) || time.Now().After(end) {
				return
			}
		}
	}
	// A fault may half start (one of two nodes killed): heal is then set
	// with the error, and what did start is healed as usual.
	heal, err := sc.open(ctx, f)
	if heal == nil {
		sc.note(i, 0, 0, err)
		return
	}
	sc.active.Add(1)
	sc.note(i, 1, 0, err)
	defer func() {
		// Heal with a fresh context: the run's may be cancelled, and a
		// fault left in place would poison the final reads.
		hctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hits, err := heal(hctx)
		sc.note(i, 0, hits, err)
		sc.active.Add(-1)
	}()
	sleepUntil(ctx, end)
}

func instant(kind string) bool {
	switch kind {
	case generators.KindLeaderShuffle, generators.KindCrashProducer, generators.KindCrashConsumer, generators.KindChurn:
		return true
	}
	return false
}

// sleepUntil waits until t, reporting false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	return pace(ctx, d)
}

// fire does one instantaneous fault.
func (sc *schedule) fire(f generators.Fault) error {
	switch f.Kind {
	case generators.KindLeaderShuffle:
		lm, ok := sc.prov.(cluster.LeaderMover)
		if !ok {
			return errors.New("provider cannot move leaders")
		}
		sc.rec.Nemesis("leader-shuffle", nil)
		return lm.ShuffleLeaders(context.Background())
	case generators.KindCrashProducer:
		if len(sc.w.producers) == 0 {
			return errors.New("no producer to crash")
		}
		slot := sc.w.producers[sc.intN(len(sc.w.producers))]
		sc.rec.Nemesis("crash-producer", map[string]any{"processes": slot.current().Processes()})
		return slot.crash()
	case generators.KindCrashConsumer, generators.KindChurn:
		if len(sc.w.consumers) == 0 {
			return errors.New("no consumer to crash")
		}
		slot := sc.w.consumers[sc.intN(len(sc.w.consumers))]
		c := slot.current()
		if c == nil {
			return errors.New("consumer slot not started yet")
		}
		if f.Kind == generators.KindChurn {
			sc.rec.Nemesis("churn", map[string]any{"process": c.Process()})
			slot.churn()
			return nil
		}
		sc.rec.Nemesis("crash-consumer", map[string]any{"process": c.Process(), "point": f.Params.Point})
		slot.crash(crashPoint(f.Params.Point))
		return nil
	}
	return fmt.Errorf("fault kind %q is not instantaneous", f.Kind)
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

func (sc *schedule) intN(n int) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.rng.IntN(n)
}

// healFunc ends a fault's window, returning the requests it hit.
type healFunc func(context.Context) (int64, error)

// open starts a windowed fault and records its start.
func (sc *schedule) open(ctx context.Context, f generators.Fault) (healFunc, error) {
	switch f.Kind {
	case generators.KindLostAck, generators.KindDelay, generators.KindDrop:
		return sc.openRequestFault(f)
	case generators.KindKill, generators.KindPause:
		return sc.openNodeFault(ctx, f)
	case generators.KindPartition:
		p, ok := sc.prov.(cluster.Partitioner)
		if !ok {
			return nil, errors.New("provider cannot partition")
		}
		nodes := sc.nodes(f)
		var rest []int32
		for _, n := range sc.prov.Nodes() {
			if !slices.Contains(nodes, n.ID) {
				rest = append(rest, n.ID)
			}
		}
		sc.rec.Nemesis("partition", map[string]any{"components": [][]int32{nodes, rest}})
		if err := p.Partition(ctx, [][]int32{nodes, rest}); err != nil {
			sc.rec.Nemesis("heal", map[string]any{"error": err.Error()})
			return nil, err
		}
		return func(hctx context.Context) (int64, error) {
			err := p.Heal(hctx)
			sc.rec.Nemesis("heal", errValue(err))
			return 0, err
		}, nil
	}
	return nil, fmt.Errorf("fault kind %q has no window", f.Kind)
}

func (sc *schedule) openRequestFault(f generators.Fault) (healFunc, error) {
	rf, ok := sc.prov.(cluster.RequestFaulter)
	if !ok {
		return nil, errors.New("provider cannot fault requests")
	}
	sel := cluster.RequestFault{Probability: f.Params.Probability}
	var in cluster.Installed
	var err error
	switch f.Kind {
	case generators.KindLostAck:
		sel.Keys = []int16{0} // produce
		in, err = rf.ErrorAfterApply(sel, kafkaRequestTimedOut)
	case generators.KindDelay:
		in, err = rf.Delay(sel, f.Params.Delay.D())
	default:
		sel.Keys = []int16{0, 1} // produce and fetch
		in, err = rf.DropConnections(sel)
	}
	if err != nil {
		return nil, err
	}
	sc.rec.Nemesis(f.Kind+"-start", f.Params)
	return func(context.Context) (int64, error) {
		in.Remove()
		hits := int64(in.Hits())
		sc.rec.Nemesis(f.Kind+"-stop", map[string]any{"hits": hits})
		return hits, nil
	}, nil
}

func (sc *schedule) openNodeFault(ctx context.Context, f generators.Fault) (healFunc, error) {
	nodes := sc.nodes(f)
	down, up, start, stop := "kill", "restart", func(int32) error { return nil }, func(int32) error { return nil }
	if f.Kind == generators.KindKill {
		k, ok := sc.prov.(cluster.NodeKiller)
		if !ok {
			return nil, errors.New("provider cannot kill nodes")
		}
		start = func(n int32) error { return k.Kill(ctx, n) }
		stop = func(n int32) error { return k.Restart(context.Background(), n) }
	} else {
		p, ok := sc.prov.(cluster.NodePauser)
		if !ok {
			return nil, errors.New("provider cannot pause nodes")
		}
		down, up = "pause", "resume"
		start = func(n int32) error { return p.Pause(ctx, n) }
		stop = func(n int32) error { return p.Resume(context.Background(), n) }
	}
	sc.rec.Nemesis(down, map[string]any{"nodes": nodes})
	var done []int32
	var errs []error
	for _, n := range nodes {
		if err := start(n); err != nil {
			errs = append(errs, fmt.Errorf("%s node %d: %w", down, n, err))
			continue
		}
		done = append(done, n)
	}
	heal := func(context.Context) (int64, error) {
		var herrs []error
		for _, n := range done {
			if err := stop(n); err != nil {
				herrs = append(herrs, fmt.Errorf("%s node %d: %w", up, n, err))
			}
		}
		err := errors.Join(herrs...)
		sc.rec.Nemesis(up, map[string]any{"nodes": done, "error": errString(err)})
		return 0, err
	}
	if len(done) == 0 {
		_, _ = heal(ctx)
		return nil, errors.Join(errs...)
	}
	return heal, errors.Join(errs...)
}

// nodes are the fault's nodes, or one chosen by the seed.
func (sc *schedule) nodes(f generators.Fault) []int32 {
	if len(f.Params.Nodes) > 0 {
		return f.Params.Nodes
	}
	all := sc.prov.Nodes()
	return []int32{all[sc.intN(len(all))].ID}
}

func errValue(err error) map[string]any {
	if err == nil {
		return nil
	}
	return map[string]any{"error": err.Error()}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
