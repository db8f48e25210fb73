package runner

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
)

// meter watches ops as they are recorded (histories.RecorderConfig.Observe:
// called under the recorder's lock, one op at a time, so its maps need no
// lock of their own) and keeps what results.json reports beyond the
// checker's stats: latencies and throughput per f. The live counters are
// atomics because the progress line reads them from another goroutine.
type meter struct {
	ops, errors, okOps atomic.Int64
	crashes            atomic.Int64 // client processes that crashed
	// frozen ends the latency and throughput accounting when the workload
	// stops, so that shutdown and final reads do not count as workload.
	frozen atomic.Bool

	invoked map[int64]int64    // process -> time of its open invoke
	latency map[string][]int64 // f -> completion latencies, ns
	ok      map[string]int64   // f -> ok completions
}

func newMeter() *meter {
	return &meter{invoked: map[int64]int64{}, latency: map[string][]int64{}, ok: map[string]int64{}}
}

func (m *meter) observe(op *histories.Op) {
	m.ops.Add(1)
	if !op.IsClient() || m.frozen.Load() {
		return
	}
	switch op.Type {
	case histories.Invoke:
		m.invoked[op.Process] = op.Time
		return
	case histories.Info:
		if op.F == histories.FCrash {
			m.crashes.Add(1)
			return
		}
		m.errors.Add(1)
	case histories.OK:
		m.okOps.Add(1)
		m.ok[op.F]++
	default:
		m.errors.Add(1)
	}
	if t, open := m.invoked[op.Process]; open {
		m.latency[op.F] = append(m.latency[op.F], op.Time-t)
		delete(m.invoked, op.Process)
	}
}

// Quantiles are latency quantiles of one f, in milliseconds.
type Quantiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func quantiles(ns []int64) Quantiles {
	s := slices.Clone(ns)
	slices.Sort(s)
	at := func(q float64) float64 {
		i := int(q * float64(len(s)-1))
		return float64(s[i]) / float64(time.Millisecond)
	}
	return Quantiles{N: len(s), P50: at(.5), P95: at(.95), P99: at(.99), Max: at(1)}
}

// FaultStat says how often one scheduled fault acted.
type FaultStat struct {
	Kind string `json:"kind"`
	// Fired counts activations (a window opened, a crash or shuffle done).
	Fired int64 `json:"fired"`
	// Hits counts requests a request fault acted on.
	Hits int64 `json:"hits,omitempty"`
	// Errors are activations that failed, with why.
	Errors []string `json:"errors,omitempty"`
	// Evidence is what verified its effects, where the fault keeps it
	// (nemesis.Evidencer: a clock's readings).
	Evidence []string `json:"evidence,omitempty"`
	// NeverRan are its steps that were due before the schedule stopped
	// (or the run ended) and never started, by when they were due.
	NeverRan []string `json:"never-ran,omitempty"`
}

// Stats are results.json's stats: the checker's, plus what the run
// measured.
type Stats struct {
	checkers.Stats
	Seconds    float64              `json:"seconds"`
	Throughput map[string]float64   `json:"throughput"` // ok completions per second, per f
	Latency    map[string]Quantiles `json:"latency-ms"` // invoke to completion, per f
	// FaultsFired is the sum of Faults' Fired; Crashes counts client
	// crashes that took effect.
	FaultsFired int64       `json:"faults-fired"`
	Faults      []FaultStat `json:"faults"`
	Crashes     int64       `json:"crashes"`
	// LateRequests counts the transactions' requests still unanswered
	// when their transaction ended, by API and answer ("Produce
	// accepted"), from the request log of a run whose clients went
	// through proxies (kproxy.Outlived).
	LateRequests map[string]int64 `json:"late-requests,omitempty"`
}

func (m *meter) stats(cs checkers.Stats, elapsed time.Duration, faults []FaultStat) Stats {
	st := Stats{Stats: cs, Seconds: elapsed.Seconds(), Throughput: map[string]float64{},
		Latency: map[string]Quantiles{}, Faults: faults, Crashes: m.crashes.Load()}
	for f, n := range m.ok {
		if elapsed > 0 {
			st.Throughput[f] = float64(n) / elapsed.Seconds()
		}
	}
	for f, ls := range m.latency {
		if len(ls) > 0 {
			st.Latency[f] = quantiles(ls)
		}
	}
	for _, f := range faults {
		st.FaultsFired += f.Fired
	}
	return st
}
