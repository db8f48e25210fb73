package proc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
	"github.com/kafkachaos/kafkachaos/workers"
)

// position is one worker position and the worker process in it now; its
// supervisor (run) puts a successor in when one dies, as a service
// manager restarts a crashed service.
type position struct {
	pool *Pool
	at   workers.Position
	done chan struct{} // closed when run returned

	mu       sync.Mutex
	live     *child // started, not yet ended
	ready    bool   // live has started its clients
	stopping bool   // the run is over: no successor, and live is told to stop

	// unfenced: the last worker process of the position died without a
	// clean end, and (a copier or txn queue) may have left a transaction
	// open
	unfenced atomic.Bool
}

// run keeps a worker process in the position until ctx ends; first gets
// the first one's start error.
func (ps *position) run(ctx context.Context, first chan<- error) {
	defer close(ps.done)
	stop := context.AfterFunc(ctx, ps.stop)
	defer stop()
	for n := 0; ; n++ {
		ch, err := ps.pool.spawn(ps.at, false)
		if n == 0 {
			first <- err
			if err != nil {
				return
			}
		}
		if err != nil {
			ps.pool.fail(err)
			if !ctxsleep.For(ctx, time.Second) {
				return
			}
			continue
		}
		ps.put(ch)
		<-ch.exited
		ps.unfenced.Store(!ch.clean)
		if ps.take(ch) {
			return
		}
	}
}

// put makes ch the position's worker process; a position already stopping
// tells it to stop at once.
func (ps *position) put(ch *child) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.live, ps.ready = ch, true
	if ps.stopping {
		ch.stop()
	}
}

// take clears the position after ch ended, and reports whether the
// position is stopping.
func (ps *position) take(ch *child) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.live == ch {
		ps.live, ps.ready = nil, false
	}
	return ps.stopping
}

// stop tells the position's worker process to stop, and the supervisor
// not to start another.
func (ps *position) stop() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.stopping = true
	if ps.live != nil {
		ps.live.stop()
	}
}

// current is the position's worker process when it has started its
// clients and the run is not over, else nil: faults act on it.
func (ps *position) current() *child {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.ready || ps.stopping {
		return nil
	}
	return ps.live
}

// running is the position's worker process, started or not.
func (ps *position) running() *child {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.live
}
