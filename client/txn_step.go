package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrCopierStopped is returned by Step once the copier hit a fatal error:
// a successor (same transactional.id, new process) must take over.
var ErrCopierStopped = errors.New("client: copier stopped by a fatal error")

// Step runs one transaction: it reads up to max input records, waiting at
// most wait, copies them and commits them with their offsets, or aborts.
// It returns the txn op's type. A step that read nothing records an ok txn
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

// txnRun is one transaction in progress.
type txnRun struct {
	inv             *histories.Op
	mops            []histories.Mop
	begun           bool
	commitRequested bool
}

func (cp *Copier) stepTxn(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	c := cp.c
	run := &txnRun{inv: c.invoke(histories.FTxn, []histories.Mop{{F: histories.MPoll}}, nil)}
	c.rebalance = nil
	got, err := c.fetch(ctx, max, wait)
	run.mops = []histories.Mop{{F: histories.MPoll, Records: got.records}}
	if err == nil && c.rebalance != nil && len(c.rebalance.Revoked) > 0 && got.n > 0 {
		// Offsets of revoked keys are no longer ours to commit.
		err = errors.New("partitions revoked during the transaction")
	}
	if err != nil {
		return cp.finish(run, err)
	}
	if got.n == 0 {
		return cp.finish(run, nil)
	}
	abort := cp.rng.Float64() < cp.opts.AbortProbability
	if err := cp.kp.BeginTransaction(); err != nil {
		return cp.finish(run, err)
	}
	run.begun = true
	sends, err := cp.produce(ctx, got, abort)
	run.mops = append(run.mops, sends...)
	if err == nil {
		run.mops = append(run.mops, histories.Mop{F: histories.MCommit, Offsets: got.next})
		err = cp.sendOffsets(ctx, got.next)
	}
	if cp.crashPoint() {
		return histories.Info, cp.crash(run.inv, run.mops)
	}
	if err == nil && abort {
		err = errAbortedOnPurpose
	}
	if err == nil {
		run.commitRequested = true
		err = cp.retry(ctx, cp.kp.CommitTransaction)
	}
	return cp.finish(run, err)
}

// finish records the txn op's completion and, unless it committed, aborts
// what may be open and rewinds the consumer.
func (cp *Copier) finish(run *txnRun, err error) (histories.Type, error) {
	t := TxnOutcome(run.commitRequested, err)
	cp.c.completePoll(run.inv, t, run.mops, err)
	if t == histories.OK {
		return t, nil
	}
	if run.begun && TxnActionOf(err) != TxnFatal {
		// Bounded on its own: the step's ctx may be what ended it.
		actx, cancel := context.WithTimeout(context.Background(), 3*cp.opts.CallTimeout)
		abortErr := cp.retry(actx, cp.kp.AbortTransaction)
		cancel()
		if abortErr != nil {
			// The producer is stuck in this transaction: a successor
			// fences it and the coordinator aborts what is open.
			return t, cp.stop(fmt.Errorf("abort: %w", abortErr))
		}
	}
	if TxnActionOf(err) == TxnFatal {
		return t, cp.stop(err)
	}
	if rerr := cp.rewind(); rerr != nil {
		return t, cp.stop(fmt.Errorf("rewind: %w", rerr))
	}
	return t, nil
}

// stop ends the copier after an error it cannot step past (a fenced
// producer, a position it cannot restore): it leaves the group and closes
// both clients, so that a successor can take over at once.
func (cp *Copier) stop(err error) error {
	cp.dead, cp.kcGone, cp.kpGone = true, true, true
	go cp.c.kc.Close()
	go cp.kp.Close()
	return fmt.Errorf("%w: %w", ErrCopierStopped, err)
}

// produce sends each record read to its output key and waits for every
// delivery report, returning one send mop per record, key by key in read order.
func (cp *Copier) produce(ctx context.Context, got *fetched, poison bool) ([]histories.Mop, error) {
	var mops []histories.Mop
	reports := make(chan kafka.Event, got.n)
	for k, recs := range got.records {
		for _, r := range recs {
			v := r.Value
			if poison {
				v = PoisonValue(v)
			}
			mops = append(mops, histories.Send(cp.opts.Pairs[k], v))
			msg := &kafka.Message{TopicPartition: cp.outputs[k], Value: encodeValue(v), Opaque: len(mops) - 1}
			if err := cp.kp.Produce(msg, reports); err != nil {
				return mops, err
			}
		}
	}
	var first error
	for range mops {
		var ev kafka.Event
		select {
		case ev = <-reports:
		case <-ctx.Done():
			return mops, ctx.Err()
		}
		m := ev.(*kafka.Message)
		if m.TopicPartition.Error != nil {
			first = cmp.Or(first, m.TopicPartition.Error)
			continue
		}
		mops[m.Opaque.(int)].Offset = deliveredOffset(m)
	}
	return mops, first
}

// sendOffsets adds the next offsets to the transaction with the group's
// current metadata, so a member of a stale generation is refused.
func (cp *Copier) sendOffsets(ctx context.Context, next map[histories.Key]int64) error {
	meta, err := cp.c.kc.GetConsumerGroupMetadata()
	if err != nil {
		return err
	}
	tps := cp.c.tps(next)
	return cp.retry(ctx, func(ctx context.Context) error { return cp.kp.SendOffsetsToTransaction(ctx, tps, meta) })
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
// where there is none. A group that never committed may not exist yet:
// kfake answers GROUP_ID_NOT_FOUND where Kafka answers "no offset".
func (cp *Copier) committed(tps []kafka.TopicPartition) ([]kafka.TopicPartition, error) {
	out, err := cp.c.kc.Committed(tps, int(cp.opts.CallTimeout/time.Millisecond))
	var kerr kafka.Error
	if errors.As(err, &kerr) && kerr.Code() == kafka.ErrGroupIDNotFound {
		out, err = slices.Clone(tps), nil
		for i := range out {
			out[i].Offset = kafka.OffsetInvalid
		}
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
