package franz

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// txnLife is the life of a franz-go transactional worker, a copier or a
// txn queue: its process, the crash asked of it, and its end, which cuts
// its client off (no request of it reaches a broker again) and leaves its
// transaction to the successor's fence.
type txnLife struct {
	process int64
	group   string // the copier's, in its last op
	rec     client.Recorder
	link    *link
	close   func() // closes the worker's client
	stopped error  // what its Step returns once it has stopped

	crashReq atomic.Bool
	crashed  atomic.Bool
	ended    atomic.Bool
	unfenced atomic.Bool
}

// Process returns the worker's process id.
func (l *txnLife) Process() int64 { return l.process }

// Ended reports whether the worker has ended: crashed, stopped, hung or
// closed. No op of its process follows.
func (l *txnLife) Ended() bool { return l.ended.Load() }

// Crashed reports whether a crash requested by Crash has taken effect.
func (l *txnLife) Crashed() bool { return l.crashed.Load() }

// NeedsFencing reports whether the worker ended without a clean close: a
// transaction of its may still be open until a successor fences it.
func (l *txnLife) NeedsFencing() bool { return l.unfenced.Load() }

// Crash requests a crash after the next transaction's sends, before its
// end. Safe to call from any goroutine.
func (l *txnLife) Crash() { l.crashReq.Store(true) }

// refuse is the error of a Step of a worker that has ended; nil while it
// runs.
func (l *txnLife) refuse() error {
	switch {
	case l.crashed.Load():
		return client.ErrCrashed
	case l.ended.Load():
		return l.stopped
	}
	return nil
}

// crashNow lands a requested crash: the worker ends and records its crash
// op.
func (l *txnLife) crashNow() error {
	l.halt(client.ErrCrashed)
	l.crashed.Store(true)
	return client.ErrCrashed
}

// stop ends the worker after err, which it cannot step past.
func (l *txnLife) stop(err error) error {
	l.halt(err)
	return fmt.Errorf("%w: %w", l.stopped, err)
}

// halt ends the worker: its client cut off and closed in the background,
// and its last op recorded for why: a client-hang op for a hang, a crash
// op for a crash; none for an error it stops at.
func (l *txnLife) halt(why error) {
	l.ended.Store(true)
	l.unfenced.Store(true)
	l.link.sever()
	go l.close()
	var hang *client.HangError
	switch {
	case errors.As(why, &hang):
		l.rec.Record(&histories.Op{Process: l.process, Type: histories.Info, F: histories.FClientHang, Group: l.group, Value: hang.Value()})
	case errors.Is(why, client.ErrCrashed):
		l.rec.Record(&histories.Op{Process: l.process, Type: histories.Info, F: histories.FCrash, Group: l.group, Value: json.RawMessage(`{"killed":true}`)})
	}
}
