package sim

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Played is what one simulated run recorded.
type Played struct {
	// History is the run's history.jsonl.
	History []byte
	// Log is the run's canonical event log (see EventLog).
	Log EventLog
	// Virtual is how long the run took in virtual time, final reads
	// included.
	Virtual     time.Duration
	FaultsFired int
}

// Play runs s: cluster, workers and faults until s's time limit, every
// fault healed, then the final reads. It must run inside a synctest
// bubble (Child makes one); outside one it would run in real time. An
// error is a harness failure: the history is then not to be judged.
func Play(s generators.Scenario) (Played, error) { return play1(s, nil, nil) }

// play1 is Play counting every recorded op in ops (nil: none), so that a
// watcher outside the bubble can tell a run from a stalled one, with
// prepare (nil: none) given the cluster before any client starts: the
// tests' way to make the cluster answer as no scenario's fault does.
func play1(s generators.Scenario, ops *atomic.Int64, prepare func(*cluster)) (Played, error) {
	if err := errors.Join(s.Validate(), supported(s)); err != nil {
		return Played{}, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	topics := []string{s.Keys.Topic}
	if s.Keys.OutputTopic != "" {
		topics = append(topics, s.Keys.OutputTopic)
	}
	c, err := startCluster(s.Cluster.Brokers, s.Keys.Count, topics, s.Seed, session(s))
	if err != nil {
		return Played{}, err
	}
	defer func() {
		c.fake.Close()
		time.Sleep(settle)
	}()
	if prepare != nil {
		prepare(c)
	}
	var buf bytes.Buffer
	cfg := histories.RecorderConfig{FlushEvery: -1}
	if ops != nil {
		cfg.Observe = func(*histories.Op) { ops.Add(1) }
	}
	rec := histories.NewRecorder(histories.NewWriter(&buf), cfg)
	start := time.Now()
	e := &env{s: s, c: c, rec: rec, start: start, end: start.Add(s.TimeLimit.D()), parts: keyMap(s, 0, s.Keys.Count)}
	if s.Keys.OutputTopic != "" {
		e.out = keyMap(s, s.Keys.Count, s.Keys.Count)
	}
	fired, written, err := play(e)
	if cerr := rec.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing history: %w", cerr))
	}
	p := Played{History: buf.Bytes(), Virtual: time.Since(start), FaultsFired: fired}
	if err != nil {
		return p, err
	}
	p.Log, err = eventLog(p.History, written)
	return p, err
}

// settle is how long, in virtual time, a run waits after closing its
// cluster: kgo's Close does not wait for a request goroutine still writing
// on a slowConn (a client closed while its first connection was opening),
// and a bubble whose main goroutine ends before those do panics.
const settle = time.Second

// play is the recorded part of a run.
func play(e *env) (int, map[histories.Key][]written, error) {
	var wg sync.WaitGroup
	ps, err := runProducers(e, &wg)
	if err != nil {
		return 0, nil, err
	}
	cs := makeConsumers(e)
	cps := makeCopiers(e)
	errs := make([]error, len(cs)+len(cps))
	for i, c := range cs {
		wg.Go(func() { errs[i] = c.run() })
	}
	for i, cp := range cps {
		wg.Go(func() { errs[len(cs)+i] = cp.run() })
	}
	n := &nemesis{e: e, r: e.rng(0x6e656d), producers: ps, consumers: cs}
	nerr := n.run(schedule(e.s))
	time.Sleep(time.Until(e.end))
	wg.Wait()
	for _, p := range ps {
		p.close()
	}
	e.bg.Wait()
	if err := errors.Join(append(errs, nerr)...); err != nil {
		return int(e.fired.Load()), nil, err
	}
	written, err := finalReads(e)
	return int(e.fired.Load()), written, err
}

// makeConsumers makes the workload's consumers, their process ids taken
// in a fixed order before any runs.
func makeConsumers(e *env) []*consumer {
	_, poll, _ := periods(e.s.Workload)
	cs := make([]*consumer, e.s.Workload.Consumers)
	for i := range cs {
		cs[i] = &consumer{e: e, rebalances: rebalances{e: e}, period: poll, r: e.rng(uint64(0x2000 + i)), i: i, pid: e.pid(), faults: make(chan faultReq, 1)}
	}
	return cs
}

// makeCopiers makes the workload's copiers, each with a transactional id
// of its own, in a group apart from the consumers' (as workers/ does).
func makeCopiers(e *env) []*copier {
	_, _, txn := periods(e.s.Workload)
	cps := make([]*copier, e.s.Workload.Copiers)
	for i := range cps {
		cps[i] = &copier{e: e, rebalances: rebalances{e: e}, period: txn, r: e.rng(uint64(0x5000 + i)), pid: e.pid(),
			txnID: e.s.CopierTxnID(i), group: e.s.CopierGroup()}
	}
	return cps
}
