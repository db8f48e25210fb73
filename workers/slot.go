package workers

import "sync"

// Slot holds the client working in one worker position now. Its worker puts
// a successor in when the client crashed or left; faults read the current
// one from any goroutine. The zero value holds the zero T (nil: no client
// yet).
type Slot[T any] struct {
	mu  sync.Mutex
	cur T
}

// Current is the slot's client now.
func (s *Slot[T]) Current() T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Put makes c the slot's client.
func (s *Slot[T]) Put(c T) {
	s.mu.Lock()
	s.cur = c
	s.mu.Unlock()
}
