package explore

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// DefaultK is how many runs judge a shrink candidate (see the package doc).
const DefaultK = 3

// minTime is the shortest time limit the shrinker tries: shorter runs end
// before a group has formed and show nothing.
const minTime = time.Second

// Step is one line of the shrink log: a candidate, what changed, and the
// verdict of its runs.
type Step struct {
	Change string
	// Outcome is "fails" (kept), "passes" (dropped: every run judged,
	// none failed), "error" (dropped: a run ended in a harness error and
	// none failed, so the candidate was not shown to pass), "stopped" (the
	// shrink was stopped before its k runs were judged; the last step) or
	// "invalid: why" (never run).
	Outcome string
	Runs    int
	// Verdict is the failing run's (Outcome "fails").
	Verdict Verdict
	// Errors are the runs' harness errors, and runs that violated the
	// claim with other anomaly kinds than the original's.
	Errors []string
}

// Shrunk is a shrink's result: the smallest scenario seen failing, the
// verdict of its last failing run, and the log.
type Shrunk struct {
	Scenario generators.Scenario
	Verdict  Verdict
	Log      []Step
	Runs     int
	Elapsed  time.Duration
	// Stopped: the shrink's context ended before the shrink did, so a
	// smaller scenario may still fail.
	Stopped bool
}

// Shrink makes s, whose run v violated its claim, as small as it can by
// greedy steps — drop a fault, fire a repeating fault once, halve keys,
// producers, consumers, copiers, txn queues and the time — keeping a step only if the
// candidate still fails in one of up to k runs of judge, until no step is
// kept. Each candidate is logged to log (nil: not written) as it is judged.
func Shrink(ctx context.Context, s generators.Scenario, v Verdict, judge Judge, k int, log io.Writer) Shrunk {
	began := time.Now()
	res := Shrunk{Scenario: s, Verdict: v}
	// A change that was dropped is not tried again on the smaller
	// scenarios that follow: each try costs k runs, and a change that did
	// not matter to a bigger scenario seldom starts to matter to a smaller
	// one.
	dropped := map[string]bool{}
	for kept := true; kept && ctx.Err() == nil; {
		kept = false
		for _, c := range candidates(res.Scenario) {
			if dropped[c.change] {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			st := try(ctx, c, judge, k, v.Anomalies)
			dropped[c.change] = st.Outcome != "fails"
			res.Log, res.Runs = append(res.Log, st), res.Runs+st.Runs
			if log != nil {
				fmt.Fprintln(log, st.line(len(res.Log)))
			}
			if st.Outcome == "fails" {
				res.Scenario, res.Verdict, kept = c.s, st.Verdict, true
				break // candidates of the smaller scenario next
			}
		}
	}
	res.Elapsed, res.Stopped = time.Since(began), ctx.Err() != nil
	return res
}

func (st Step) line(n int) string {
	b := fmt.Sprintf("candidate %d: %s: %s", n, st.Change, st.Outcome)
	if st.Runs > 0 {
		b += fmt.Sprintf(" (%d runs)", st.Runs)
	}
	if st.Outcome == "fails" {
		b += fmt.Sprintf(": expected %s, observed %s, anomalies %v, run dir %s",
			st.Verdict.Expected, st.Verdict.Observed, st.Verdict.Anomalies, st.Verdict.Dir)
	}
	if len(st.Errors) > 0 {
		b += "; " + strings.Join(st.Errors, "; ")
	}
	return b
}

// try judges candidate c by up to k runs, stopping at the first failure: a
// violation showing one of the anomaly kinds want (the original's, so that
// the shrink keeps its bug rather than trading it for another). The
// failure's anomalies are cut to want's: those are what a replay pins. A
// harness error in any run makes a candidate that did not fail an "error",
// never a pass: that run showed nothing.
func try(ctx context.Context, c candidate, judge Judge, k int, want []string) Step {
	st := Step{Change: c.change, Outcome: "passes"}
	if err := c.s.Validate(); err != nil {
		st.Outcome = "invalid: " + err.Error()
		return st
	}
	for range max(k, 1) {
		if ctx.Err() != nil {
			st.Outcome = "stopped"
			break
		}
		v, err := judge(ctx, c.s)
		st.Runs++
		if ctx.Err() != nil && err == nil && !v.Violated {
			st.Outcome = "stopped" // a run cut short shows nothing
			break
		}
		if err != nil {
			st.Outcome = "error"
			st.Errors = append(st.Errors, err.Error())
			continue
		}
		if same := sameBug(v, want); same != nil {
			v.Anomalies = same
			st.Outcome, st.Verdict = "fails", v
			return st
		}
		if v.Violated {
			st.Errors = append(st.Errors, fmt.Sprintf("run %d violated with other anomalies %v", st.Runs, v.Anomalies))
		}
	}
	return st
}

// sameBug is v's anomaly kinds among want when v violates its claim with
// one of them (any, when want is empty); nil otherwise.
func sameBug(v Verdict, want []string) []string {
	if !v.Violated {
		return nil
	}
	if len(want) == 0 {
		return append([]string{}, v.Anomalies...)
	}
	var same []string
	for _, a := range v.Anomalies {
		if slices.Contains(want, a) {
			same = append(same, a)
		}
	}
	return same
}

type candidate struct {
	change string
	s      generators.Scenario
}

// candidates are s's one-step reductions, biggest first: faults, then keys
// and clients, then time.
func candidates(s generators.Scenario) []candidate {
	var out []candidate
	for i, f := range s.Nemesis {
		c := clone(s)
		c.Nemesis = append(c.Nemesis[:i], c.Nemesis[i+1:]...)
		out = append(out, candidate{fmt.Sprintf("drop nemesis[%d] %s", i, f.Kind), c})
	}
	for i, f := range s.Nemesis {
		if len(generators.Steps(f)) > 1 {
			c := clone(s)
			c.Nemesis[i].Params.Every = 0
			out = append(out, candidate{fmt.Sprintf("fire nemesis[%d] %s once (was %d steps)", i, f.Kind, len(generators.Steps(f))), c})
		}
	}
	if n := s.Keys.Count; n > 1 {
		c := clone(s)
		c.Keys = generators.SequentialKeys(n/2, s.Keys.Topic, s.Keys.OutputTopic)
		out = append(out, candidate{fmt.Sprintf("keys %d -> %d", n, n/2), c})
	}
	out = append(out, halveClients(s)...)
	if lim := s.TimeLimit.D(); lim/2 >= minTime {
		c := halveTime(s)
		out = append(out, candidate{fmt.Sprintf("time %v -> %v", lim, c.TimeLimit), c})
	}
	return out
}

func halveClients(s generators.Scenario) []candidate {
	var out []candidate
	w := s.Workload
	for _, h := range []struct {
		name string
		n    int
		lo   int
		set  func(*generators.Workload, int)
	}{
		{"producers", w.Producers, 0, func(w *generators.Workload, n int) { w.Producers = n }},
		{"consumers", w.Consumers, 0, func(w *generators.Workload, n int) { w.Consumers = n }},
		{"copiers", w.Copiers, 1, func(w *generators.Workload, n int) { w.Copiers = n }},
		{"txn-queues", w.TxnQueues, 0, func(w *generators.Workload, n int) { w.TxnQueues = n }},
		{"lanes", w.Lanes, 1, func(w *generators.Workload, n int) { w.Lanes = n }},
	} {
		if next := max(h.lo, h.n/2); h.n > 1 || (h.n == 1 && h.lo == 0) {
			c := clone(s)
			h.set(&c.Workload, next)
			out = append(out, candidate{fmt.Sprintf("%s %d -> %d", h.name, h.n, next), c})
		}
	}
	return out
}

// halveTime halves the time limit and the schedule with it, so that each
// fault keeps its place in the run.
func halveTime(s generators.Scenario) generators.Scenario {
	c := clone(s)
	c.TimeLimit = generators.Duration((c.TimeLimit.D() / 2).Round(time.Millisecond))
	for i := range c.Nemesis {
		f := &c.Nemesis[i]
		f.Start, f.Duration, f.Params.Every = halfMs(f.Start), halfMs(f.Duration), halfMs(f.Params.Every)
	}
	return c
}

func halfMs(d generators.Duration) generators.Duration {
	return generators.Duration((d.D() / 2).Round(time.Millisecond))
}

// clone copies s deeply enough for a candidate to change its schedule and
// keys without touching s.
func clone(s generators.Scenario) generators.Scenario {
	c := s
	c.Nemesis = append([]generators.Fault(nil), s.Nemesis...)
	for i := range c.Nemesis {
		c.Nemesis[i].Params.Nodes = append([]int32(nil), s.Nemesis[i].Params.Nodes...)
	}
	return c
}

// Size is what the shrinker minimises, for reports.
type Size struct {
	FaultSteps, Keys, Clients int
	Time                      time.Duration
}

// SizeOf measures s.
func SizeOf(s generators.Scenario) Size {
	z := Size{Keys: s.Keys.Count, Time: s.TimeLimit.D(),
		Clients: s.Workload.Producers + s.Workload.Consumers + s.Workload.Copiers + s.Workload.TxnQueues}
	for _, f := range s.Nemesis {
		z.FaultSteps += len(generators.Steps(f))
	}
	return z
}

func (z Size) String() string {
	return fmt.Sprintf("%d fault steps, %d keys, %d clients, %v", z.FaultSteps, z.Keys, z.Clients, z.Time)
}
