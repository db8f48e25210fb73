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
	mu    sync.Mutex
	cp    *client.Copier
}

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
		Recorder: s.w.rec, Process: s.w.procs.Next(), Fencer: s.w.fencer,
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

func (s *copierSlot) run(ctx context.Context, every time.Duration) {
	defer s.w.wg.Done()
	for ctx.Err() == nil {
		cp, err := s.open(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.w.fail(err)
			}
			return
		}
		for pace(ctx, every) {
			_, err := cp.Step(ctx, s.w.s.Workload.TxnSize, 100*time.Millisecond)
			if errors.Is(err, client.ErrCrashed) || errors.Is(err, client.ErrCopierStopped) {
				break // a successor takes over
			}
		}
		if ctx.Err() != nil && !cp.Crashed() {
			cp.Close()
		}
	}
}

// crash crashes the copier at its next transaction's worst moment.
func (s *copierSlot) crash() (int64, error) {
	cp := s.current()
	if cp == nil {
		return 0, errNothingToCrash
	}
	cp.Crash()
	return cp.Process(), nil
}

// settle makes sure no transaction is left open at the end: a copier that
// crashed last leaves one, which would hold back every read_committed
// reader (the final reads) until it times out, so a successor is opened
// just to fence it, then closed.
func (s *copierSlot) settle(ctx context.Context) {
	cp := s.current()
	if cp == nil || !cp.Crashed() {
		return
	}
	next, err := s.open(ctx)
	if err != nil {
		s.w.fail(fmt.Errorf("fencing the last crashed copier: %w", err))
		return
	}
	next.Close()
}
