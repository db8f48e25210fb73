package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/franz"
	"github.com/kafkachaos/kafkachaos/client/java"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// CopierClient is a consume-transform-produce client under test, as the
// scenario names the client for its copier role: client.Copier
// (librdkafka), java.Copier (the Java client in a JVM of its own) or
// franz.Copier (franz-go); the last two copy transactionally only. Each is
// one process of the history and records its ops itself, the same ops for
// the same copy mode.
type CopierClient interface {
	// Step runs one transaction (or at-least-once cycle) of up to max
	// records, waiting at most wait for the first.
	Step(ctx context.Context, max int, wait time.Duration) (histories.Type, error)
	Process() int64
	Ended() bool
	Crashed() bool
	NeedsFencing() bool
	// Crash asks for a crash at the next transaction's worst moment.
	Crash()
	Close()
}

// CopierSlot is one consume-transform-produce position: a copier runs in
// it until it crashes or stops on a fatal error, then a successor with a
// new process id takes over. A transactional successor has the same
// transactional.id, which fences the old producer and aborts its open
// transaction; an at-least-once one resumes from the group's committed
// offsets and copies again what its predecessor sent but did not commit.
type CopierSlot struct {
	Slot[CopierClient]
	w     *Workload
	index int
	done  chan struct{} // closed when the slot's worker returned
}

// copierCallTimeout is what each transactional call of a copier is given;
// one that blocks a grace longer is abandoned as hung (client.Bounded).
const copierCallTimeout = 10 * time.Second

// settleBound bounds the successor settle opens to fence the last copier:
// its InitTransactions retries are cut off there.
const settleBound = 30 * time.Second

// copyMode is the client's mode for the scenario's copier mode (validated).
func copyMode(wl generators.Workload) client.CopyMode {
	if wl.CopyMode() == generators.CopyAtLeastOnce {
		return client.CopyAtLeastOnce
	}
	return client.CopyTransactional
}

// options: input key k is copied to output key Count+k; the copiers form
// their own group, apart from the scenario's consumers.
func (s *CopierSlot) options() client.CopierOptions {
	w, sc := s.w, s.w.s
	pairs := make(map[histories.Key]histories.Key, sc.Keys.Count)
	for k := range sc.Keys.Count {
		pairs[histories.Key(k)] = histories.Key(sc.Keys.Count + k)
	}
	opts := client.CopierOptions{
		Bootstrap: w.opts.Bootstrap, Keys: w.all, Pairs: pairs,
		Group: sc.CopierGroup(), Subscribe: !sc.Workload.CopierAssign, Mode: copyMode(sc.Workload),
		Producer:         w.txnProducerConfig(),
		Consumer:         client.ConsumerConfig{SessionTimeout: sc.Consumer.SessionTimeout.D()},
		AbortProbability: sc.Workload.AbortRatio, Seed: sc.Seed + int64(s.index),
		CallTimeout: copierCallTimeout,
		Recorder:    w.opts.Recorder, Process: w.procs.Next(), Fencer: w.opts.Fencer, Logs: w.opts.Logs,
	}
	if opts.Mode == client.CopyTransactional {
		opts.TransactionalID = sc.CopierTxnID(s.index)
	}
	return opts
}

func (s *CopierSlot) open(ctx context.Context) (CopierClient, error) {
	cp, err := s.newCopier(ctx)
	if err != nil {
		return nil, fmt.Errorf("workload: copier %d: %w", s.index, err)
	}
	s.Put(cp)
	return cp, nil
}

// newCopier opens a copier of the scenario's copier client.
func (s *CopierSlot) newCopier(ctx context.Context) (CopierClient, error) {
	switch s.w.s.ClientOf(generators.RoleCopier) {
	case generators.ClientJava:
		return java.NewCopier(ctx, java.CopierOptions{CopierOptions: s.options(), Version: s.w.s.JavaVersion()})
	case generators.ClientFranzGo:
		return franz.NewCopier(ctx, s.options())
	}
	return client.NewCopier(ctx, s.options())
}

// run keeps a copier stepping in the slot until ctx ends (keepRunning).
func (s *CopierSlot) run(ctx context.Context, every time.Duration) {
	keepRunning(ctx, s.w, s.open, func(cp CopierClient) { s.step(ctx, cp, every) })
}

// step runs cp until ctx ends or cp can step no more.
func (s *CopierSlot) step(ctx context.Context, cp CopierClient, every time.Duration) {
	stepUntilEnd(ctx, s.w, every, fmt.Sprintf("copier %d", s.index), client.ErrCopierStopped, func() error {
		_, err := cp.Step(ctx, s.w.s.Workload.TxnSize, 100*time.Millisecond)
		return err
	})
}

// Crash asks the copier to crash at its next transaction's (or cycle's)
// worst moment and returns it, so the caller can tell when it has
// (Copier.Crashed); ErrNothingToCrash when there is none to ask.
func (s *CopierSlot) Crash() (CopierClient, error) { return requestCrash(s.Current()) }

// settle makes sure no transaction is left open at the end: a copier that
// crashed, stopped or hung, or whose worker never returned, may have one,
// which would hold back every read_committed reader (the final reads) until
// it times out. A successor is opened just to fence it, then closed, all
// within settleBound. An at-least-once copier has no transaction to leave.
func (s *CopierSlot) settle(ctx context.Context) {
	cp := s.Current()
	if copyMode(s.w.s.Workload) != client.CopyTransactional || !needsSettling(cp, s.done) {
		return
	}
	s.fence(ctx, fmt.Sprintf("the last copier %d", cp.Process()))
}

// fence opens a successor only to fence what its predecessor left open,
// and closes it, within settleBound; last names the predecessor.
func (s *CopierSlot) fence(ctx context.Context, last string) { fenceWith(ctx, s.w, s.open, last) }

// FenceTransactions fences what transactional workers outside this
// workload left open: a copier's or txn queue's worker process killed
// mid-transaction (see workers/proc), with no successor. It opens a
// successor in each such position and closes it.
func (w *Workload) FenceTransactions(ctx context.Context) {
	if copyMode(w.s.Workload) == client.CopyTransactional {
		for _, c := range w.copiers {
			c.fence(ctx, fmt.Sprintf("the copier %d of a killed process", c.index))
		}
	}
	for _, q := range w.txnQueues {
		fenceWith(ctx, w, q.open, fmt.Sprintf("the txn queue %d of a killed process", q.index))
	}
}

// StopBound is how long a workload's Stop may take at most: its workers'
// return, the producers' close (10s) and the copiers' settling.
func StopBound() time.Duration { return workerStopBound() + 10*time.Second + settleBound }
