package proc

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/workers"
)

// message is one JSON line between the harness and a worker process, in
// either direction; one field is set.
type message struct {
	// harness -> worker
	Start *start `json:"start,omitempty"`
	Stop  bool   `json:"stop,omitempty"`
	Reply *reply `json:"reply,omitempty"`
	// Stall and Resume stall the worker's consumer and end that stall
	// (stall.go); the worker answers each with Stalled
	Stall  *stallReq `json:"stall,omitempty"`
	Resume bool      `json:"resume,omitempty"`
	// Ask numbers a stall or a resume; its answer carries the number
	Ask int64 `json:"ask,omitempty"`

	// worker -> harness; each of Op, NextValue and NextProcess waits for
	// its reply before the worker goes on
	Op          *histories.Op `json:"op,omitempty"`
	NextValue   bool          `json:"next-value,omitempty"`
	NextProcess bool          `json:"next-process,omitempty"`
	Error       string        `json:"error,omitempty"` // a harness error the worker met
	Ready       bool          `json:"ready,omitempty"` // its clients are started
	Done        bool          `json:"done,omitempty"`  // stopped cleanly: its last line
	Stalled     *stallAnswer  `json:"stalled,omitempty"`
}

// start is what a worker process runs.
type start struct {
	Scenario  generators.Scenario `json:"scenario"`
	Position  workers.Position    `json:"position"`
	Bootstrap string              `json:"bootstrap"`
	// Fence makes the process open a transactional worker (copier or txn
	// queue) only to fence what a killed predecessor left open, and exit.
	Fence bool `json:"fence,omitempty"`
}

// reply answers an op (its index and time) or a value or process request.
type reply struct {
	Index int64 `json:"index,omitempty"`
	Time  int64 `json:"time,omitempty"`
	Value int64 `json:"value,omitempty"`
}

// encoder writes messages as lines, one writer at a time.
type encoder struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newEncoder(w io.Writer) *encoder { return &encoder{enc: json.NewEncoder(w)} }

func (e *encoder) send(m message) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.enc.Encode(m); err != nil {
		return fmt.Errorf("worker wire: %w", err)
	}
	return nil
}
