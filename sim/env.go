package sim

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// env is what every worker and fault of one run shares.
type env struct {
	s     generators.Scenario
	c     *cluster
	rec   *histories.Recorder
	start time.Time
	end   time.Time // the workload's end: no op starts after it
	parts []int32   // key -> partition of s.Keys.Topic

	mu      sync.Mutex
	nextPid int64
	values  int // values sent so far, against Workload.MaxValues
	bg      sync.WaitGroup
}

// rng is the random stream named stream of the run's seed: every worker
// and fault has its own, so one's draws never shift another's.
func (e *env) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(e.s.Seed), stream))
}

// pid is a process id no client used before.
func (e *env) pid() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextPid++
	return e.nextPid - 1
}

// takeValue reserves one send against Workload.MaxValues.
func (e *env) takeValue() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.s.Workload.MaxValues > 0 && e.values >= e.s.Workload.MaxValues {
		return false
	}
	e.values++
	return true
}

func (e *env) over() bool { return !time.Now().Before(e.end) }

// sleepUntilNext sleeps one period, jittered by ±20% plus a few
// nanoseconds drawn from r so that no two workers wake at one instant,
// and reports whether the workload is still running.
func (e *env) sleepUntilNext(r *rand.Rand, period time.Duration) bool {
	d := time.Duration(float64(period)*(0.8+0.4*r.Float64())) + time.Duration(r.IntN(997)+1)
	if left := time.Until(e.end); d > left {
		d = left
	}
	time.Sleep(d)
	return !e.over()
}

// periods are the pause between two sends of one lane and between two
// polls of one consumer, from the workload's rate and mix.
func periods(w generators.Workload) (send, poll time.Duration) {
	rate := w.Rate
	if rate <= 0 {
		rate = 1000
	}
	sends, polls := float64(w.Mix.Send), float64(w.Mix.Poll)
	if w.Consumers == 0 {
		polls = 0
	}
	if w.Producers == 0 {
		sends = 0
	}
	total := sends + polls
	if total == 0 {
		return time.Second, time.Second
	}
	every := func(workers int, share float64) time.Duration {
		if share == 0 || workers == 0 {
			return time.Second
		}
		return time.Duration(float64(workers) / (rate * share / total) * float64(time.Second))
	}
	return every(w.Producers*max(1, w.Lanes), sends), every(w.Consumers, polls)
}

func keyMap(s generators.Scenario) []int32 {
	parts := make([]int32, s.Keys.Count)
	for k := range parts {
		if tp, ok := s.Keys.Map[strconv.Itoa(k)]; ok {
			parts[k] = tp.Partition
		} else {
			parts[k] = int32(k)
		}
	}
	return parts
}

// keyOf is the key of partition p, or -1.
func (e *env) keyOf(p int32) histories.Key {
	for k, q := range e.parts {
		if q == p {
			return histories.Key(k)
		}
	}
	return -1
}
