package explore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// bigWeak is a valid weak scenario with room to shrink: several faults,
// keys and clients.
func bigWeak(t *testing.T) generators.Scenario {
	t.Helper()
	gs := GenSpace("embedded")
	gs.MaxFaults, gs.MinFaults = 3, 3
	for i := range 200 {
		s, err := Draw(gs, SpaceWeak, 7, i)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Nemesis) >= 2 && s.Keys.Count >= 2 && s.Workload.Producers >= 2 && s.Workload.Copiers == 0 && hasKind(s, generators.KindLostAck) {
			return s
		}
	}
	t.Fatal("no draw of 200 has 2 faults with a lost-ack, 2 keys and 2 producers")
	return generators.Scenario{}
}

func hasKind(s generators.Scenario, kind string) bool {
	for _, f := range s.Nemesis {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// fakeJudge fails a scenario that still has a lost-ack fault and a
// producer, on its failOn-th call for that exact scenario (1: always), and
// counts the calls.
type fakeJudge struct {
	failOn int
	calls  int
	seen   map[string]int
}

func (f *fakeJudge) judge(_ context.Context, s generators.Scenario) (Verdict, error) {
	f.calls++
	b, _ := json.Marshal(s)
	key := string(b)
	f.seen[key]++
	bad := hasKind(s, generators.KindLostAck) && s.Workload.Producers > 0 && f.seen[key] >= f.failOn
	return Verdict{Violated: bad, Anomalies: []string{"duplicate"}, Expected: "exactly-once", Observed: "at-least-once"}, nil
}

func TestShrinkReachesTheMinimum(t *testing.T) {
	s := bigWeak(t)
	f := &fakeJudge{failOn: 1, seen: map[string]int{}}
	var log strings.Builder
	sh := Shrink(context.Background(), s, Verdict{Violated: true}, f.judge, 3, &log)
	got := sh.Scenario
	if len(got.Nemesis) != 1 || got.Nemesis[0].Kind != generators.KindLostAck {
		t.Errorf("nemesis %+v, want the lost-ack alone", got.Nemesis)
	}
	if got.Keys.Count != 1 || got.Workload.Producers != 1 || got.Workload.Consumers != 0 || got.Workload.Lanes != 1 {
		t.Errorf("keys %d, producers %d, consumers %d, lanes %d: want 1, 1, 0, 1",
			got.Keys.Count, got.Workload.Producers, got.Workload.Consumers, got.Workload.Lanes)
	}
	if got.TimeLimit.D() >= 2*minTime {
		t.Errorf("time limit %v, want under %v (halved while it stays >= %v)", got.TimeLimit, 2*minTime, minTime)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("shrunk scenario is invalid: %v", err)
	}
	if !strings.Contains(log.String(), "drop nemesis[") || !strings.Contains(log.String(), ": fails (1 runs)") {
		t.Errorf("log lacks the dropped faults or a failing verdict:\n%s", log.String())
	}
	if len(sh.Log) != strings.Count(log.String(), "\n") {
		t.Errorf("%d steps, %d log lines", len(sh.Log), strings.Count(log.String(), "\n"))
	}
}

// A candidate that fails only on its third run is found failing with k=3
// (after 3 runs) and missed with k=2 (2 runs, then dropped).
func TestShrinkJudgesEachCandidateByUpToKRuns(t *testing.T) {
	s := bigWeak(t)
	for _, tc := range []struct {
		k        int
		wantKept bool
	}{{3, true}, {2, false}} {
		f := &fakeJudge{failOn: 3, seen: map[string]int{}}
		sh := Shrink(context.Background(), s, Verdict{Violated: true}, f.judge, tc.k, nil)
		if len(sh.Log) == 0 {
			t.Fatalf("k=%d: no candidates", tc.k)
		}
		for i, st := range sh.Log {
			if st.Runs > tc.k {
				t.Errorf("k=%d: candidate %d (%s) took %d runs", tc.k, i+1, st.Change, st.Runs)
			}
			if st.Outcome == "fails" && st.Runs != 3 {
				t.Errorf("k=%d: candidate %d (%s) failed on run %d, the fake fails on the 3rd", tc.k, i+1, st.Change, st.Runs)
			}
		}
		if kept := SizeOf(sh.Scenario) != SizeOf(s); kept != tc.wantKept {
			t.Errorf("k=%d: shrunk %v -> %v; want a change kept: %v", tc.k, SizeOf(s), SizeOf(sh.Scenario), tc.wantKept)
		}
		if sh.Runs != f.calls {
			t.Errorf("k=%d: %d runs reported, the judge saw %d", tc.k, sh.Runs, f.calls)
		}
	}
}

func TestShrinkNeverRunsAnInvalidCandidate(t *testing.T) {
	s := bigWeak(t)
	f := &fakeJudge{failOn: 1, seen: map[string]int{}}
	sh := Shrink(context.Background(), s, Verdict{Violated: true}, func(ctx context.Context, c generators.Scenario) (Verdict, error) {
		if err := c.Validate(); err != nil {
			t.Errorf("judged an invalid scenario: %v", err)
		}
		return f.judge(ctx, c)
	}, 1, nil)
	invalid := 0
	for _, st := range sh.Log {
		if strings.HasPrefix(st.Outcome, "invalid") {
			invalid++
			if st.Runs != 0 {
				t.Errorf("%s: %s after %d runs", st.Change, st.Outcome, st.Runs)
			}
		}
	}
	// Dropping the last producer under a lost-ack is invalid: without such
	// a candidate this test would check nothing.
	if invalid == 0 {
		t.Errorf("no invalid candidate among %d steps: the test no longer meets one", len(sh.Log))
	}
}

func TestHalveTimeKeepsTheScheduleInPlace(t *testing.T) {
	s := generators.Scenario{TimeLimit: generators.Duration(3 * time.Second), Nemesis: []generators.Fault{
		{Kind: generators.KindLostAck, Start: generators.Duration(time.Second), Duration: generators.Duration(1500 * time.Millisecond)}}}
	h := halveTime(s)
	if h.TimeLimit.D() != 1500*time.Millisecond || h.Nemesis[0].Start.D() != 500*time.Millisecond || h.Nemesis[0].Duration.D() != 750*time.Millisecond {
		t.Errorf("halved to limit %v, fault at %v for %v", h.TimeLimit, h.Nemesis[0].Start, h.Nemesis[0].Duration)
	}
	if s.Nemesis[0].Start.D() != time.Second {
		t.Errorf("halving changed the original: start %v", s.Nemesis[0].Start)
	}
}

// A candidate that violates the claim with another anomaly kind than the
// original's is a different bug: it passes, and the log says why.
func TestShrinkKeepsTheOriginalBug(t *testing.T) {
	s := bigWeak(t)
	judge := func(_ context.Context, c generators.Scenario) (Verdict, error) {
		kind := "duplicate"
		if len(c.Nemesis) < len(s.Nemesis) {
			kind = "lost-write" // dropping a fault trades the bug for another
		}
		return Verdict{Violated: true, Anomalies: []string{kind, "reorder"}}, nil
	}
	sh := Shrink(context.Background(), s, Verdict{Violated: true, Anomalies: []string{"duplicate"}}, judge, 2, nil)
	if len(sh.Scenario.Nemesis) != len(s.Nemesis) {
		t.Errorf("shrunk to %d faults, from %d: dropping one showed another bug", len(sh.Scenario.Nemesis), len(s.Nemesis))
	}
	if got := sh.Verdict.Anomalies; len(got) != 1 || got[0] != "duplicate" {
		t.Errorf("pinned anomalies %v, want [duplicate] (the original's among those seen)", got)
	}
	st := sh.Log[0]
	if !strings.HasPrefix(st.Change, "drop nemesis") || st.Outcome != "passes" || st.Runs != 2 ||
		len(st.Errors) != 2 || !strings.Contains(st.Errors[0], "other anomalies [lost-write reorder]") {
		t.Errorf("first step %+v", st)
	}
}

// Txn queues are halved like the other clients, and never below what a
// fault needs: a crash-producer whose only senders are txn queues keeps
// one, the candidate without any being invalid.
func TestShrinkHalvesTxnQueues(t *testing.T) {
	s := generators.Baseline("queues", "embedded", 4*time.Second)
	s.Producer.TransactionalID = "q"
	s.Workload.Producers, s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.Mix.Txn = 0, 2, 3, 1
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: generators.Duration(1500 * time.Millisecond)}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	judge := func(_ context.Context, c generators.Scenario) (Verdict, error) {
		return Verdict{Violated: hasKind(c, generators.KindCrashProducer), Anomalies: []string{"G1a"}}, nil
	}
	var log strings.Builder
	got := Shrink(context.Background(), s, Verdict{Violated: true}, judge, 1, &log).Scenario
	if got.Workload.TxnQueues != 1 || SizeOf(got).Clients != 1 {
		t.Errorf("txn queues %d, %d clients: want 1 of each", got.Workload.TxnQueues, SizeOf(got).Clients)
	}
	if !strings.Contains(log.String(), "txn-queues 2 -> 1: fails") || !strings.Contains(log.String(), "txn-queues 1 -> 0: invalid") {
		t.Errorf("log lacks the kept halving or the invalid last step:\n%s", log.String())
	}
}

// A candidate whose runs all ended in a harness error (a crashed child,
// say) showed nothing: it is an error, not a pass.
func TestShrinkCallsACrashedCandidateAnError(t *testing.T) {
	s := bigWeak(t)
	f := &fakeJudge{failOn: 1, seen: map[string]int{}}
	judge := func(ctx context.Context, c generators.Scenario) (Verdict, error) {
		if c.Keys.Count < s.Keys.Count {
			return Verdict{}, errors.New("sim: draw: exit status 2: panic: deadlock")
		}
		return f.judge(ctx, c)
	}
	var log strings.Builder
	sh := Shrink(context.Background(), s, Verdict{Violated: true}, judge, 2, &log)
	found := false
	for _, st := range sh.Log {
		if !strings.HasPrefix(st.Change, "keys ") {
			continue
		}
		found = true
		if st.Outcome != "error" || st.Runs != 2 || len(st.Errors) != 2 {
			t.Errorf("crashed candidate %q: outcome %q after %d runs, errors %q; want error after 2", st.Change, st.Outcome, st.Runs, st.Errors)
		}
	}
	if !found {
		t.Fatal("no keys candidate: the test no longer meets a crashed run")
	}
	if !strings.Contains(log.String(), ": error (2 runs); sim: draw: exit status 2") {
		t.Errorf("log does not call the crashed candidate an error:\n%s", log.String())
	}
}

// A shrink stopped in the middle of a candidate's runs logs that candidate
// as stopped, never as passing, and tries no other.
func TestShrinkStoppedPassesNothing(t *testing.T) {
	s := bigWeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		if runs++; runs == 2 {
			cancel()
		}
		return Verdict{}, nil
	}
	sh := Shrink(ctx, s, Verdict{Violated: true, Anomalies: []string{"duplicate"}}, judge, 3, nil)
	if len(sh.Log) != 1 || sh.Log[0].Outcome != "stopped" || sh.Log[0].Runs != 2 || !sh.Stopped {
		t.Fatalf("log %+v, want one step, stopped after 2 runs", sh.Log)
	}
	if len(sh.Scenario.Nemesis) != len(s.Nemesis) {
		t.Errorf("a stopped shrink changed the scenario")
	}
}
