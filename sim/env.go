package sim

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
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
	out   []int32   // key Count+k -> partition of s.Keys.OutputTopic (copiers' output)

	mu      sync.Mutex
	nextPid int64
	values  int // values sent so far, against Workload.MaxValues
	bg      sync.WaitGroup
	fired   atomic.Int64 // faults that landed
}

// faultValue is a nemesis op's value, as the runner's nemesis writes it:
// the fault's name, which liveness reads, and what it did.
type faultValue struct {
	Fault  string `json:"fault"`
	Detail any    `json:"detail,omitempty"`
}

// landed records that fault kind took effect, with what it did, as the
// nemesis op f ("<kind>-start" for a window, kind for an instantaneous
// fault), and counts it fired.
func (e *env) landed(f, kind string, detail any) {
	e.fired.Add(1)
	e.rec.Nemesis(f, faultValue{Fault: kind, Detail: detail})
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

// periods are the pause between two sends of one lane, two polls of one
// consumer and two transactions of one copier, from the workload's rate
// and mix.
func periods(w generators.Workload) (send, poll, txn time.Duration) {
	rate := w.Rate
	if rate <= 0 {
		rate = 1000
	}
	share := func(weight, workers int) float64 {
		if workers == 0 {
			return 0
		}
		return float64(weight)
	}
	sends, polls, txns := share(w.Mix.Send, w.Producers), share(w.Mix.Poll, w.Consumers), share(max(1, w.Mix.Txn), w.Copiers)
	total := sends + polls + txns
	every := func(workers int, weight float64) time.Duration {
		if weight == 0 || workers == 0 {
			return time.Second
		}
		return time.Duration(float64(workers) / (rate * weight / total) * float64(time.Second))
	}
	return every(w.Producers*max(1, w.Lanes), sends), every(w.Consumers, polls), every(w.Copiers, txns)
}

// keyMap is the partition of keys from..from+n-1, as s.Keys.Map says
// (partition k-from where it says nothing).
func keyMap(s generators.Scenario, from, n int) []int32 {
	parts := make([]int32, n)
	for i := range parts {
		if tp, ok := s.Keys.Map[strconv.Itoa(from+i)]; ok {
			parts[i] = tp.Partition
		} else {
			parts[i] = int32(i)
		}
	}
	return parts
}

// keyAt is the key of partition p of topic, or -1.
func (e *env) keyAt(topic string, p int32) histories.Key {
	switch topic {
	case e.s.Keys.Topic:
		return e.keyOf(p)
	case e.s.Keys.OutputTopic:
		for i, q := range e.out {
			if q == p {
				return histories.Key(len(e.parts) + i)
			}
		}
	}
	return -1
}

// topicOf is where key k lives.
func (e *env) topicOf(k histories.Key) (string, int32) {
	if int(k) < len(e.parts) {
		return e.s.Keys.Topic, e.parts[k]
	}
	return e.s.Keys.OutputTopic, e.out[int(k)-len(e.parts)]
}

// allKeys are every key of the run: input, then output.
func (e *env) allKeys() []histories.Key {
	keys := make([]histories.Key, len(e.parts)+len(e.out))
	for k := range keys {
		keys[k] = histories.Key(k)
	}
	return keys
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

// took records process pid taking keys (an assign or subscribe, in group
// when subscribing): its invoke, then its ok, since kgo takes them
// without a round trip that could fail.
func (e *env) took(pid int64, f, group string, keys []histories.Key, extra map[string]json.RawMessage) {
	inv := e.rec.Record(&histories.Op{Process: pid, Type: histories.Invoke, F: f, Keys: keys, Group: group, Extra: extra})
	e.rec.Record(&histories.Op{Process: pid, Type: histories.OK, F: f, Keys: keys, Group: inv.Group, Extra: extra})
}
