package kafkachaos_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/sim"
)

// TestSimChild is the entry of the simulation's child processes.
func TestSimChild(t *testing.T) { sim.Child(t) }

// simDraws is how many draws TestChaosSim makes; KAFKACHAOS_SIM_DRAWS
// overrides it.
const simDraws = 1000

// plantEvery makes every n-th draw the planted weak configuration: a
// retrying producer without idempotence under lost acks, claimed
// exactly-once, which the checkers must refute.
const plantEvery = 50

// TestChaosSim runs many simulated draws: each random draw's model
// verdict must hold, each planted weak draw must be caught, and a saved
// seed must replay exactly.
//
// It runs only with KAFKACHAOS_SIM=1 for now: some draws still stall their
// bubble (killed after sim's child timeout) and some commit-before-
// processing draws show duplicate deliveries not yet explained (a sim
// worker's recording or a franz-go finding); until both are settled it
// would fail the suite for everyone.
func TestChaosSim(t *testing.T) {
	if os.Getenv("KAFKACHAOS_SIM") != "1" {
		t.Skip("KAFKACHAOS_SIM=1 runs the simulation draws (open issues: see the test's doc)")
	}
	n := simDraws
	if v, err := strconv.Atoi(os.Getenv("KAFKACHAOS_SIM_DRAWS")); err == nil && v > 0 {
		n = v
	}
	dir := t.TempDir()
	began := time.Now()
	var mu sync.Mutex
	var virtual time.Duration
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				v := simDraw(t, dir, i)
				mu.Lock()
				virtual += v
				mu.Unlock()
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	el := time.Since(began)
	t.Logf("%d draws in %v (%.0f draws/minute), %v virtual (%.0f virtual s per wall s)",
		n, el.Round(time.Millisecond), float64(n)/el.Minutes(), virtual.Round(time.Second), virtual.Seconds()/el.Seconds())
	simReplay(t, dir, generators.RandomIn(sim.Space(), 1))
}

// simDraw plays and judges draw i and returns its virtual length.
func simDraw(t *testing.T, dir string, i int) time.Duration {
	s := generators.RandomIn(sim.Space(), int64(i))
	planted := i%plantEvery == plantEvery-1
	if planted {
		s = plantedWeak(int64(i))
	}
	p, err := sim.Spawn(context.Background(), os.Args[0], filepath.Join(dir, strconv.Itoa(i)), s)
	if err == nil {
		os.RemoveAll(filepath.Join(dir, strconv.Itoa(i)))
	}
	if err != nil {
		t.Errorf("draw %d: %v", i, err)
		return 0
	}
	v, err := sim.Check(s, p)
	switch {
	case err != nil:
		t.Errorf("draw %d: %v", i, err)
	case planted && model.Satisfies(v.Observed.EndToEnd, model.ExactlyOnce):
		t.Errorf("draw %d (planted weak, seed %d): not caught: %v", i, s.Seed, v.Result.Counts)
	case !planted && !v.Held:
		t.Errorf("draw %d (seed %d): expected %s, observed %s: %v", i, s.Seed, v.Expected.EndToEnd, v.Observed.EndToEnd, v.Result.Counts)
	}
	return p.Virtual
}

func plantedWeak(seed int64) generators.Scenario {
	s := generators.Baseline("sim-planted", "sim", 2*time.Second)
	s.Seed = seed
	s.Producer.EnableIdempotence, s.Producer.Acks = false, model.AcksLeader
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{{Kind: generators.KindLostAck, Start: generators.Duration(200 * time.Millisecond),
		Duration: generators.Duration(time.Second), Params: generators.FaultParams{Probability: 0.5}}}
	return s
}

// simReplay plays s twice and wants equal event logs.
func simReplay(t *testing.T, dir string, s generators.Scenario) {
	var logs [2]sim.EventLog
	for i := range logs {
		p, err := sim.Spawn(context.Background(), os.Args[0], filepath.Join(dir, "replay", strconv.Itoa(i)), s)
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
