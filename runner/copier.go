package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// copierSlot is one consume-transform-produce position: a transactional
// copier runs in it until it crashes or stops on a fatal error, then a
// successor with the same transactional.id (which fences the old producer
// and aborts its open transaction) and a new process id takes over.
type copierSlot struct {
	w     *workload
	index int
	done  chan struct{} // closed when the slot's worker returned
	mu    sync.Mutex
	cp    *client.Copier
}

// copierCallTimeout is what each transactional call of a copier is given;
// one that blocks a grace longer is abandoned as hung (client.Bounded).
const copierCallTimeout = 10 * time.Second

// settleBound bounds the successor settle opens to fence the last copier:
// its InitTransactions retries are cut off there.
const settleBound = 30 * time.Second

// copierOptions: input key k is copied to output key Count+k; the copiers
// form their own group, apart from the scenario's consumers.
func (s *copierSlot) options() (client.CopierOptions, error) {
	sc := s.w.s
	all, err := keyMapOf(sc.Keys.Map)
	if err != nil {
		return client.CopierOptions{}, err
	}
	pairs := make(map[histories.Key]histories.Key, sc.Keys.Count)
	for k := range sc.Keys.Count {
		pairs[histories.Key(k)] = histories.Key(sc.Keys.Count + k)
	}
	pc := s.w.producerConfig()
	// A backstop (successors abort sooner); librdkafka wants it no
	// shorter than the delivery timeout.
	pc.TransactionTimeout = max(10*time.Second, pc.DeliveryTimeout)
	return client.CopierOptions{
		Bootstrap: s.w.bootstrap, Keys: all, Pairs: pairs,
		Group: sc.Workload.Group + "-copiers", Subscribe: true, Mode: client.CopyTransactional,
		TransactionalID:  sc.Producer.TransactionalID + "-" + strconv.Itoa(s.index),
		Producer:         pc,
		Consumer:         client.ConsumerConfig{SessionTimeout: sc.Consumer.SessionTimeout.D()},
		AbortProbability: sc.Workload.AbortRatio, Seed: sc.Seed + int64(s.index),
		CallTimeout: copierCallTimeout,
		Recorder:    s.w.rec, Process: s.w.procs.Next(), Fencer: s.w.fencer, Logs: s.w.logs,
	}, nil
}

func (s *copierSlot) open(ctx context.Context) (*client.Copier, error) {
	opts, err := s.options()
	if err != nil {
		return nil, err
	}
	cp, err := client.NewCopier(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("workload: copier %d: %w", s.index, err)
	}
	s.mu.Lock()
	s.cp = cp
	s.mu.Unlock()
	return cp, nil
}

func (s *copierSlot) current() *client.Copier {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cp
}

// run keeps a copier stepping in the slot until ctx ends. A copier that
// crashed, stopped or hung is replaced by a successor, whose
// InitTransactions fences it; so is one whose NewCopier hung (that is a
// finding in the history, not a harness error).
func (s *copierSlot) run(ctx context.Context, every time.Duration) {
	for ctx.Err() == nil {
		cp, err := s.open(ctx)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, client.ErrClientHang):
			continue
		case errors.Is(err, client.ErrRetriesExhausted):
			s.w.fail(err) // the cluster may come back: keep trying
			continue
		default:
			s.w.fail(err)
			return
		}
		s.step(ctx, cp, every)
		if ctx.Err() != nil && !cp.Crashed() {
			cp.Close()
		}
	}
}

// step runs cp until ctx ends or cp can step no more.
func (s *copierSlot) step(ctx context.Context, cp *client.Copier, every time.Duration) {
	for pace(ctx, every) {
		_, err := cp.Step(ctx, s.w.s.Workload.TxnSize, 100*time.Millisecond)
		if errors.Is(err, client.ErrRetriesExhausted) {
			s.w.fail(fmt.Errorf("workload: copier %d: %w", s.index, err))
		}
		if errors.Is(err, client.ErrCrashed) || errors.Is(err, client.ErrCopierStopped) {
			return // a successor takes over
		}
	}
}

// crash asks the copier to crash at its next transaction's worst moment
// and returns it, so the caller can tell when it has.
func (s *copierSlot) crash() (*client.Copier, error) {
	cp := s.current()
	if cp == nil || cp.Crashed() || cp.NeedsFencing() {
		return nil, errNothingToCrash // none yet, or being replaced
	}
	cp.Crash()
	return cp, nil
}

// settle makes sure no transaction is left open at the end: a copier that
// crashed, stopped or hung, or whose worker never returned, may have one,
// which would hold back every read_committed reader (the final reads) until
// it times out. A successor is opened just to fence it, then closed, all
// within settleBound.
func (s *copierSlot) settle(ctx context.Context) {
	cp := s.current()
	if cp == nil || (!cp.NeedsFencing() && s.returned()) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, settleBound)
	defer cancel()
	next, err := s.open(ctx)
	if err != nil {
		s.w.fail(fmt.Errorf("fencing the last copier %d: %w", cp.Process(), err))
		return
	}
	next.Close()
}

// returned reports whether the slot's worker has returned.
func (s *copierSlot) returned() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
