package kafkachaos_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/sim"
	"github.com/kafkachaos/kafkachaos/sim/simrun"
)

// TestSimChild is the entry of the simulation's child processes.
func TestSimChild(t *testing.T) { sim.Child(t) }

// simDraws is how many draws TestChaosSim makes; KAFKACHAOS_SIM_DRAWS
// overrides it.
const simDraws = 1000

// plantEvery makes every n-th draw sim.Planted, claimed exactly-once,
// which the checkers must refute.
const plantEvery = 50

// maxStalledPercent bounds the draws that end stalled (sim.Stalled: a
// limit of kgo and kfake under synctest, no verdict either way); more
// would leave too much of the space unjudged.
const maxStalledPercent = 1

// simReplaySeed is the saved seed replayed exactly.
const simReplaySeed = 1

// TestChaosSim runs many simulated draws in virtual time: each random
// draw of sim.Space must hold its model guarantee, each planted weak draw
// must be refuted, and a saved seed must replay exactly.
func TestChaosSim(t *testing.T) {
	parallelOnEmbedded(t)
	n := simDraws
	if v, err := strconv.Atoi(os.Getenv("KAFKACHAOS_SIM_DRAWS")); err == nil && v > 0 {
		n = v
	}
	planted := func(i int) bool { return i%plantEvery == plantEvery-1 }
	var mu sync.Mutex
	var virtual time.Duration
	var stalled []int64
	began := time.Now()
	err := sim.Draws(context.Background(), os.Args[0], t.TempDir(), n, runtime.GOMAXPROCS(0), func(i int) generators.Scenario {
		if planted(i) {
			return sim.Planted(int64(i))
		}
		return generators.RandomIn(sim.Space(), int64(i))
	}, func(d sim.Drawn) {
		mu.Lock()
		defer mu.Unlock()
		virtual += d.Played.Virtual
		switch err := d.Want(planted(d.I)); {
		case errors.Is(err, sim.Stalled):
			stalled = append(stalled, d.Scenario.Seed)
		case err != nil:
			t.Error(err)
		}
	})
	if err != nil {
		t.Error(err)
	}
	el := time.Since(began)
	t.Logf("%d draws in %v (%.0f draws/minute), %v virtual (%.0f virtual s per wall s); stalled: seeds %v",
		n, el.Round(time.Millisecond), float64(n)/el.Minutes(), virtual.Round(time.Second), virtual.Seconds()/el.Seconds(), stalled)
	if len(stalled)*100 > n*maxStalledPercent {
		t.Errorf("%d of %d draws stalled, more than %d%%", len(stalled), n, maxStalledPercent)
	}
	simReplay(t, generators.RandomIn(sim.Space(), simReplaySeed))
}

// simPlayer plays draws in child processes of this test binary, ended
// when tb ends.
func simPlayer(tb testing.TB) *sim.Player {
	pl := sim.NewPlayer(os.Args[0])
	tb.Cleanup(func() {
		if err := pl.Close(); err != nil {
			tb.Error(err)
		}
	})
	return pl
}

// simReplay plays s twice and wants equal event logs.
func simReplay(t *testing.T, s generators.Scenario) {
	var logs [2]sim.EventLog
	pl := simPlayer(t)
	for i := range logs {
		p, err := pl.Play(context.Background(), filepath.Join(t.TempDir(), "replay"), s)
		if err != nil {
			t.Fatal(err)
		}
		logs[i] = p.Log
	}
	if len(logs[0]) == 0 {
		t.Fatal("replay: empty event log")
	}
	if d := logs[0].Diff(logs[1]); d != "" {
		t.Errorf("seed %d did not replay exactly: %s", s.Seed, d)
	}
}

// simAndEmbedded is draw i of sim.Space on provider: the same scenario
// for the simulation and the embedded cluster.
func simAndEmbedded(i int, provider string) generators.Scenario {
	s := generators.RandomIn(sim.Space(), int64(i))
	s.Cluster.Provider = provider
	return s
}

// BenchmarkDraw plays the same draws one at a time in the simulation and
// on the embedded cluster (runner.Run: cluster start, workload in real
// time, final reads, check, report); the ratio of the two ns/op is the
// simulation's speed-up per draw, and virtual-s/s how much faster than
// real time a simulated draw runs. Run with -benchtime=Nx: an embedded
// draw takes seconds.
func BenchmarkDraw(b *testing.B) {
	ctx := context.Background()
	b.Run("sim", func(b *testing.B) {
		run := simrun.Run(simPlayer(b), b.TempDir())
		var virtual time.Duration
		for i := range b.N {
			out, err := run(ctx, simAndEmbedded(i, "sim"))
			if err != nil {
				b.Fatal(err)
			}
			virtual += out.Scenario.TimeLimit.D()
		}
		b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/s")
	})
	b.Run("embedded", func(b *testing.B) {
		for i := range b.N {
			if _, err := runner.Run(ctx, simAndEmbedded(i, "embedded"), runner.Options{RunsDir: b.TempDir()}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSimFindAndShrink is the time `kafkachaos explore --cluster sim
// --space weak` takes to find a violation and shrink it to its minimal
// scenario, one run per candidate (the draw player already built).
func BenchmarkSimFindAndShrink(b *testing.B) {
	pl := simPlayer(b)
	for i := range b.N {
		judge, err := explore.ClaimJudge(explore.SpaceWeak.Claim(), simrun.Run(pl, b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		c := explore.Campaign{Gen: sim.Space(), Space: explore.SpaceWeak, Seed: int64(i + 1), Duration: time.Minute,
			Judge: judge, K: 1, Shrink: true}
		rep, err := c.Run(context.Background())
		if err != nil || rep.Found == nil || rep.Shrunk == nil {
			b.Fatalf("seed %d: found %v, err %v", i+1, rep.Found != nil, err)
		}
	}
}

// TestChaosSimDifferential (KAFKACHAOS_SIM_DIFF=N draws; skipped
// otherwise: an embedded draw takes seconds) runs the same draws under
// confluent-kafka-go on the embedded cluster (real time) and franz-go in
// the simulation. Each client's run must hold the model's expectation;
// where one holds and the other does not, the clients disagree about a
// guarantee, a finding for one of them (or for the simulation).
func TestChaosSimDifferential(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KAFKACHAOS_SIM_DIFF"))
	if n <= 0 {
		t.Skip("KAFKACHAOS_SIM_DIFF=N compares N draws under both clients")
	}
	ctx := context.Background()
	run := simrun.Run(simPlayer(t), t.TempDir())
	for i := range n {
		fr, err := run(ctx, simAndEmbedded(i, "sim"))
		if err != nil {
			t.Fatalf("draw %d, franz-go: %v", i, err)
		}
		ck, err := runner.Run(ctx, simAndEmbedded(i, "embedded"), runner.Options{RunsDir: t.TempDir()})
		if err != nil {
			t.Fatalf("draw %d, confluent-kafka-go: %v", i, err)
		}
		t.Logf("draw %d: expected %s; confluent-kafka-go observed %s (held %v), franz-go observed %s (held %v)",
			i, ck.Expected.EndToEnd, ck.Observed.EndToEnd, ck.Held, fr.Observed.EndToEnd, fr.Held)
		if ck.Held != fr.Held {
			t.Errorf("draw %d: the clients disagree: confluent-kafka-go %v %v, franz-go %v %v", i,
				ck.Expected.Breaks(ck.Observed), ck.Result.Counts, fr.Expected.Breaks(fr.Observed), fr.Result.Counts)
		}
	}
}
