package client

import (
	"context"
	"sync"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Sends is the book every producer under test (this package's, the Java
// client's, franz-go's) keeps of its sends: its lanes, each a process of
// the history with one send open at a time, the invoke and completion of
// each send, and the crash op of each lane.
//
// Every record is made under one lock, and a send is open exactly between
// its invoke and its completion: a completion is recorded only by whoever
// closes the send, so each invoke gets one, and once the book has ended no
// invoke is recorded, so no lane has an op after its crash op.
type Sends struct {
	rec     Recorder
	lanes   []int64
	free    chan int64    // lanes not in use; never holds more than len(lanes)
	stopped chan struct{} // closed at End: no lane is handed out again
	handing sync.WaitGroup
	open    sync.WaitGroup

	mu    sync.Mutex
	ended error // Begin's error once the book has ended; nil while it runs
	sends map[*Send]struct{}
}

// Send is one send between its invoke and its completion.
type Send struct {
	inv   *histories.Op
	Key   histories.Key
	Value int64
	then  func(histories.Type)
}

// NewSends opens a book of lanes lanes (at least one), each with a fresh
// process id of procs.
func NewSends(rec Recorder, procs *Processes, lanes int) *Sends {
	s := &Sends{rec: rec, free: make(chan int64, max(lanes, 1)), stopped: make(chan struct{}), sends: map[*Send]struct{}{}}
	for range max(lanes, 1) {
		id := procs.Next()
		s.lanes = append(s.lanes, id)
		s.free <- id
	}
	return s
}

// Processes returns the process ids of the lanes.
func (s *Sends) Processes() []int64 { return append([]int64(nil), s.lanes...) }

// Begin waits for a free lane, records the send's invoke and returns the
// send, which the caller then hands to its client and calls Handed. Its
// error means nothing was recorded: ctx's, or End's cause.
func (s *Sends) Begin(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) (*Send, error) {
	var lane int64
	select {
	case lane = <-s.free:
	case <-s.stopped:
		return nil, s.cause()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return nil, s.ended
	}
	sd := &Send{Key: key, Value: value, then: then}
	sd.inv = s.rec.Record(&histories.Op{Process: lane, Type: histories.Invoke, F: histories.FSend,
		Mops: []histories.Mop{histories.Send(key, value)}})
	s.sends[sd] = struct{}{}
	s.open.Add(1)
	s.handing.Add(1)
	return sd, nil
}

// Handed says a send Begin returned is in its client's hands (or refused):
// WaitHanded waits for every one.
func (s *Sends) Handed() { s.handing.Done() }

func (s *Sends) cause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// Complete records sd's completion as t unless it has one already, frees
// its lane while the book runs and calls its then. offset is recorded on
// an ok completion only, when it is known (>= 0); err, when set, is the
// op's error.
func (s *Sends) Complete(sd *Send, t histories.Type, offset int64, err error) {
	s.mu.Lock()
	ok := s.completeLocked(sd, t, offset, err)
	release := ok && s.ended == nil
	s.mu.Unlock()
	if !ok {
		return
	}
	if release {
		s.free <- sd.inv.Process // cannot block: the lane was taken from free
	}
	if sd.then != nil {
		sd.then(t)
	}
}

func (s *Sends) completeLocked(sd *Send, t histories.Type, offset int64, err error) bool {
	if _, ok := s.sends[sd]; !ok {
		return false
	}
	delete(s.sends, sd)
	defer s.open.Done()
	mop := histories.Send(sd.Key, sd.Value)
	if t == histories.OK && offset >= 0 {
		mop.Offset = offset
	}
	op := &histories.Op{Process: sd.inv.Process, Type: t, F: sd.inv.F, Mops: []histories.Mop{mop}}
	if err != nil {
		op.Error = err.Error()
	}
	s.rec.Record(op)
	return true
}

// End stops handing out lanes: Begin returns cause from now on. It reports
// whether the book was running (false: it had ended already).
func (s *Sends) End(cause error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return false
	}
	s.ended = cause
	close(s.stopped)
	return true
}

// WaitHanded waits until every send Begin returned has been handed to the
// client; after End it cannot wait long.
func (s *Sends) WaitHanded() { s.handing.Wait() }

// WaitCompleted waits until every send has its completion; call it after
// End only.
func (s *Sends) WaitCompleted() { s.open.Wait() }

// Abandon completes every open send as info with err: its outcome is
// unknown.
func (s *Sends) Abandon(err error) {
	s.mu.Lock()
	done := make([]*Send, 0, len(s.sends))
	for sd := range s.sends {
		done = append(done, sd)
	}
	for _, sd := range done {
		s.completeLocked(sd, histories.Info, histories.NoOffset, err)
	}
	s.mu.Unlock()
	for _, sd := range done {
		if sd.then != nil {
			sd.then(histories.Info)
		}
	}
}

// CrashOps records a crash op for every lane: the end of their processes.
// Call it after End and Abandon, so that no lane has an op after it.
func (s *Sends) CrashOps() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, lane := range s.lanes {
		s.rec.Record(&histories.Op{Process: lane, Type: histories.Info, F: histories.FCrash})
	}
}

// Crash ends the book as a process crash ends it: Begin returns cause,
// open sends complete as info with cause, and each lane records a crash
// op. It reports whether the book was running; one that had ended is left
// alone.
func (s *Sends) Crash(cause error) bool {
	if !s.End(cause) {
		return false
	}
	s.Abandon(cause)
	s.CrashOps()
	return true
}
