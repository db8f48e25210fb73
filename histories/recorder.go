package histories

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Recorder is what clients and the nemesis use to record a history. It is
// safe for concurrent use. It numbers ops densely from 0 in the order they
// are recorded, stamps them with the nanoseconds elapsed since the recorder
// started (monotonic clock), and appends each to its Writer at once.
//
// A Recorder keeps no ops in memory: long runs would not fit. The history is
// the file.
type Recorder struct {
	mu    sync.Mutex // orders index assignment and appends, so the file is in index order
	w     *Writer
	start time.Time
	next  int64
	err   error // first append error; sticky
	cfg   RecorderConfig

	stop chan struct{}
	done chan struct{}
}

// RecorderConfig tunes a Recorder. The zero value is valid.
type RecorderConfig struct {
	// FlushEvery is how often buffered ops are flushed to the file; 0 means
	// 100ms, negative means only on Close.
	FlushEvery time.Duration
	// Observe, when set, is called with every recorded op (after it was
	// appended, under the recorder's lock: keep it cheap, e.g. counters).
	// It must not keep the op.
	Observe func(*Op)
}

// NewRecorder starts a recorder appending to w. Its clock starts now.
func NewRecorder(w *Writer, cfg RecorderConfig) *Recorder {
	r := &Recorder{w: w, start: time.Now(), cfg: cfg}
	every := cfg.FlushEvery
	if every == 0 {
		every = 100 * time.Millisecond
	}
	if every > 0 {
		r.stop = make(chan struct{})
		r.done = make(chan struct{})
		go r.flushLoop(every)
	}
	return r
}

func (r *Recorder) flushLoop(every time.Duration) {
	defer close(r.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			if err := r.w.Flush(); err != nil {
				r.fail(err)
			}
		}
	}
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// Record stamps op with the next index and the current time, appends it and
// returns it. The other methods are shorthands for it.
func (r *Recorder) Record(op *Op) *Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	op.Index = r.next
	op.Time = int64(time.Since(r.start))
	if err := r.w.Append(op); err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("recording op %d: %w", op.Index, err)
		}
		return op
	}
	r.next++
	if r.cfg.Observe != nil {
		r.cfg.Observe(op)
	}
	return op
}

// Invoke records the start of a send, poll, txn or commit.
func (r *Recorder) Invoke(process int64, f string, mops []Mop) *Op {
	return r.Record(&Op{Process: process, Type: Invoke, F: f, Mops: mops})
}

// InvokeKeys records the start of an assign or subscribe.
func (r *Recorder) InvokeKeys(process int64, f string, keys []Key) *Op {
	return r.Record(&Op{Process: process, Type: Invoke, F: f, Keys: keys})
}

// InvokeValue records the start of any other op; value is marshalled to
// JSON (nil means no value).
func (r *Recorder) InvokeValue(process int64, f string, value any) *Op {
	return r.Record(&Op{Process: process, Type: Invoke, F: f, Value: r.marshal(value)})
}

// Complete records the completion of inv with type t. Process, f, group,
// and the keys or value of inv are copied; mops are the completed
// micro-ops (nil for ops without any). A non-nil err is recorded as the
// op's error.
func (r *Recorder) Complete(inv *Op, t Type, mops []Mop, err error) *Op {
	op := &Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops,
		Keys: inv.Keys, Value: inv.Value, Group: inv.Group}
	if err != nil {
		op.Error = err.Error()
	}
	return r.Record(op)
}

// Nemesis records a fault event (type info, process -1).
func (r *Recorder) Nemesis(f string, value any) *Op {
	return r.Record(&Op{Process: NemesisProcess, Type: Info, F: f, Value: r.marshal(value)})
}

func (r *Recorder) marshal(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		r.fail(fmt.Errorf("recording value %T: %w", v, err))
		return nil
	}
	return b
}

// Err returns the first error met while recording, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close stops the periodic flush and closes the writer. It returns the
// first error met while recording, or while closing.
func (r *Recorder) Close() error {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	cerr := r.w.Close()
	if err := r.Err(); err != nil {
		return err
	}
	return cerr
}
