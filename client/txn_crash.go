package client

import "github.com/kafkachaos/kafkachaos/histories"

// Crash requests a crash at the worst moment of the copier's next step that
// has records: after its records were sent (and, transactionally, its
// offsets added to the transaction), before the commit. The open op
// completes as info, a crash op follows, and both clients are torn down
// without a clean close: no abort, no commit, no leave (with a Fencer).
// Safe to call from any goroutine; Step then returns ErrCrashed.
func (cp *Copier) Crash() { cp.c.crashAt.Store(int32(crashInCopy)) }

// Ended reports whether the copier has ended: crashed, closed, or abandoned
// after a hung call. No op of its process follows.
func (cp *Copier) Ended() bool { return cp.c.Ended() }

// Crashed reports whether a crash requested by Crash has taken effect; a
// clean Close is not one.
func (cp *Copier) Crashed() bool { return cp.c.Crashed() }

// crashPoint reports whether a requested crash fires now.
func (cp *Copier) crashPoint() bool { return cp.c.crashPoint(crashInCopy) }

// crash completes open (if any) as info with mops, records the crash op and
// tears the clients down. Called with the consumer's op lock held.
func (cp *Copier) crash(open *histories.Op, mops []histories.Mop) error {
	if open != nil {
		cp.c.completePoll(open, histories.Info, mops, ErrCrashed)
	}
	cp.dead, cp.consumerReleased, cp.producerReleased = true, true, true
	cp.unfenced.Store(true)
	// Every send has its report by now. The producer's transaction
	// stays open: the coordinator aborts it when a successor's
	// InitTransactions fences this producer.
	go cp.kp.Close()
	return cp.c.crashIn(nil, nil)
}
