package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrCopierStopped is returned by Step once the copier hit a fatal error
// or a hung call (ErrClientHang, which it then wraps too):
// a successor (same transactional.id, new process) must take over.
var ErrCopierStopped = errors.New("client: copier stopped (a fatal error or a hung call)")

// Step runs one transaction: it reads up to max input records, waiting at
// most wait, copies them and commits them with their offsets, or aborts.
// It returns the txn op's type, and an error when the copier cannot go on
// (ErrCrashed, ErrCopierStopped) or a retried call ran out of its budget
// (ErrRetriesExhausted). A step that read nothing records an ok txn
// with an empty poll and begins no transaction. After a step that did not
// commit, the consumer is rewound to the group's committed offsets, so the
// records are copied again by a later step.
func (cp *Copier) Step(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	if err := cp.c.begin(); err != nil {
		return "", err
	}
	defer cp.c.opMu.Unlock()
	if cp.dead {
		return "", ErrCopierStopped
	}
	if cp.opts.Mode == CopyAtLeastOnce {
		return cp.stepPlain(ctx, max, wait)
	}
	return cp.stepTxn(ctx, max, wait)
}

func (cp *Copier) stepTxn(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	c := cp.c
	run := &txnRun{inv: c.ops.Invoke(histories.FTxn, []histories.Mop{{F: histories.MPoll}}, nil)}
	c.ops.Rebalance = nil
	got, err := c.fetch(ctx, max, wait)
	run.mops = []histories.Mop{{F: histories.MPoll, Records: got.Records}}
	if err == nil && c.ops.Rebalance != nil && len(c.ops.Rebalance.Revoked) > 0 && got.N > 0 {
		// Offsets of revoked keys are no longer ours to commit.
		err = errors.New("partitions revoked during the transaction")
	}
	if err != nil {
		return cp.finish(ctx, run, err)
	}
	if got.N == 0 {
		return cp.finish(ctx, run, nil)
	}
	abort := cp.rng.Float64() < cp.opts.AbortProbability
	sends, err := cp.copies(got, abort, run.inv.Index)
	if err != nil {
		typ, _ := cp.finish(ctx, run, err)
		return typ, cp.stop(err)
	}
	if err = cp.beginTxn(ctx, run); err != nil {
		return cp.finish(ctx, run, err)
	}
	sends, err = cp.produce(ctx, sends)
	run.mops = append(run.mops, sends...)
	if err == nil {
		run.mops = append(run.mops, histories.Mop{F: histories.MCommit, Offsets: got.Next})
		err = cp.sendOffsets(ctx, got.Next)
	}
	return cp.conclude(ctx, run, err, abort, cp.rewind)
}

// finish records the txn op's completion and, unless it committed, aborts
// what may be open and rewinds the consumer to the group's committed
// offsets (see txnClient.end).
func (cp *Copier) finish(ctx context.Context, run *txnRun, err error) (histories.Type, error) {
	return cp.end(ctx, run, err, cp.rewind)
}

// copies returns the sends of the records got holds (CopySends).
func (cp *Copier) copies(got *fetched, poison bool, attempt int64) ([]histories.Mop, error) {
	return CopySends(got.Records, cp.opts.Pairs, poison, attempt)
}

// CopySends returns one send mop per record of records, key by key in
// key order and each key's in read order: the record's copy to its output
// key pairs names, poisoned by attempt (the txn op's invoke index) when
// the transaction is to abort (histories.CopyValue, histories.PoisonValue).
func CopySends(records map[histories.Key][]histories.Record, pairs map[histories.Key]histories.Key, poison bool, attempt int64) ([]histories.Mop, error) {
	var mops []histories.Mop
	for _, k := range slices.Sorted(maps.Keys(records)) {
		for _, r := range records[k] {
			v, err := histories.CopyValue(r.Value, r.Offset)
			if poison {
				v, err = histories.PoisonValue(r.Offset, attempt)
			}
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", k, err)
			}
			mops = append(mops, histories.Send(pairs[k], v))
		}
	}
	return mops, nil
}

// produce sends each copy to its output key and waits for every delivery
// report, setting the offset of each that landed. It returns the mops of
// the copies it handed to the producer.
func (cp *Copier) produce(ctx context.Context, mops []histories.Mop) ([]histories.Mop, error) {
	reports := make(chan kafka.Event, len(mops))
	for i, m := range mops {
		tp, _ := cp.opts.Keys.TP(m.Key)
		if err := cp.kp.Produce(&kafka.Message{TopicPartition: tp, Value: encodeValue(m.Value), Opaque: i}, reports); err != nil {
			return mops[:i], err
		}
	}
	return mops, cp.awaitReports(ctx, mops, reports, len(mops))
}

// sendOffsets adds the next offsets to the transaction with the group's
// current metadata, so a member of a stale generation is refused.
func (cp *Copier) sendOffsets(ctx context.Context, next map[histories.Key]int64) error {
	meta, err := cp.c.kc.GetConsumerGroupMetadata()
	if err != nil {
		return err
	}
	tps := cp.c.tps(next)
	return cp.retry(ctx, "SendOffsetsToTransaction", func(ctx context.Context) error {
		return cp.kp.SendOffsetsToTransaction(ctx, tps, meta)
	})
}

// rewind seeks every assigned key back to the group's committed offset (its
// beginning where none), dropping what uncommitted steps read.
func (cp *Copier) rewind() error {
	kc := cp.c.kc
	assigned, err := kc.Assignment()
	if err != nil || len(assigned) == 0 {
		return err
	}
	committed, err := cp.committed(assigned)
	if err != nil {
		return err
	}
	for _, tp := range committed {
		if err := kc.Seek(tp, 0); err != nil {
			return err
		}
	}
	return nil
}

// committed returns tps at the group's committed offsets, the beginning
// where there is none.
func (cp *Copier) committed(tps []kafka.TopicPartition) ([]kafka.TopicPartition, error) {
	out, err := boundedValue("Committed", cp.opts.CallTimeout, func() ([]kafka.TopicPartition, error) {
		return cp.c.kc.Committed(tps, int(cp.opts.CallTimeout/time.Millisecond))
	})
	if errors.Is(err, ErrClientHang) {
		cp.consumerReleased = true
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Error != nil {
			return nil, fmt.Errorf("committed offset of %v: %w", out[i], out[i].Error)
		}
		if out[i].Offset < 0 {
			out[i].Offset = kafka.OffsetBeginning
		}
	}
	return out, nil
}

// tps is next as librdkafka topic-partitions.
func (c *Consumer) tps(next map[histories.Key]int64) []kafka.TopicPartition {
	out := make([]kafka.TopicPartition, 0, len(next))
	for k, off := range next {
		tp, _ := c.opts.Keys.TP(k)
		tp.Offset = kafka.Offset(off)
		out = append(out, tp)
	}
	return out
}
