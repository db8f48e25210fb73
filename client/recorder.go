package client

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Recorder appends ops to the history. It stamps each op's index and time
// and returns it; it must be safe for concurrent use. histories.Recorder
// satisfies it.
type Recorder interface {
	Record(op *histories.Op) *histories.Op
}

// MemRecorder is an in-memory Recorder for tests and examples.
type MemRecorder struct {
	mu    sync.Mutex
	start time.Time
	ops   []histories.Op
}

// NewMemRecorder returns an empty in-memory recorder whose clock starts now.
func NewMemRecorder() *MemRecorder { return &MemRecorder{start: time.Now()} }

// Record implements Recorder.
func (m *MemRecorder) Record(op *histories.Op) *histories.Op {
	m.mu.Lock()
	defer m.mu.Unlock()
	op.Index = int64(len(m.ops))
	op.Time = int64(time.Since(m.start))
	m.ops = append(m.ops, *op)
	return op
}

// Ops returns a copy of the ops recorded so far.
func (m *MemRecorder) Ops() []histories.Op {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]histories.Op(nil), m.ops...)
}

// Processes hands out process ids. A crashed worker's ids are never handed
// out again, so one Processes is shared by every worker of a run. The zero
// value counts from 0.
type Processes struct {
	next atomic.Int64
	from func() int64
}

// ProcessesFrom hands out the ids next returns: a client in a worker
// process takes its ids from the run's one sequence, in the harness.
func ProcessesFrom(next func() int64) *Processes { return &Processes{from: next} }

// Next returns a fresh process id (0, 1, 2, ...).
func (p *Processes) Next() int64 {
	if p.from != nil {
		return p.from()
	}
	return p.next.Add(1) - 1
}

// crashValue is the value of a consumer's crash op.
type crashValue struct {
	Fenced     bool   `json:"fenced"`
	FenceError string `json:"fence-error,omitempty"`
}

// json marshals v; a bool and a string cannot fail to marshal.
func (v crashValue) json() []byte {
	b, _ := json.Marshal(v)
	return b
}
