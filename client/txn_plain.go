package client

import (
	"context"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// stepPlain is one at-least-once cycle: a poll op, one send op per record
// read, then the consumer's own commit op. Nothing ties the commit to the
// sends, so a crash between them (Crash) makes the successor copy the same
// records again.
func (cp *Copier) stepPlain(ctx context.Context, max int, wait time.Duration) (histories.Type, error) {
	c := cp.c
	got, err := c.poll(ctx, max, wait)
	if err != nil || got.N == 0 {
		return completion(err), err
	}
	for k, recs := range got.Records {
		for _, r := range recs {
			v, err := histories.CopyValue(r.Value, r.Offset)
			if err != nil {
				return "", cp.stop(fmt.Errorf("key %d: %w", k, err))
			}
			if t, err := cp.sendOne(ctx, k, v); t != histories.OK {
				// The records of this cycle were processed only in
				// part: do not commit them, read them again.
				if rerr := cp.rewind(); rerr != nil {
					return t, cp.stop(fmt.Errorf("rewind: %w", rerr))
				}
				return t, err
			}
		}
	}
	if cp.crashPoint() {
		return histories.Info, cp.crash(nil, nil)
	}
	c.commit(got.Next)
	return histories.OK, nil
}

// sendOne is one send op of v (the copy of a record of input key k) to k's
// output key, waiting for its delivery report.
func (cp *Copier) sendOne(ctx context.Context, k histories.Key, v int64) (histories.Type, error) {
	mop := histories.Send(cp.opts.Pairs[k], v)
	inv := cp.c.ops.Invoke(histories.FSend, []histories.Mop{mop}, nil)
	reports := make(chan kafka.Event, 1)
	err := cp.kp.Produce(&kafka.Message{TopicPartition: cp.outputs[k], Value: encodeValue(v)}, reports)
	if err != nil {
		err = fmt.Errorf("%w: %w", errNotSent, err)
	} else {
		select {
		case ev := <-reports:
			m := ev.(*kafka.Message)
			err = m.TopicPartition.Error
			mop.Offset = deliveredOffset(m)
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	t := SendOutcome(err, cp.mayRetry())
	if t != histories.OK {
		mop.Offset = histories.NoOffset
	}
	cp.c.ops.Complete(inv, t, []histories.Mop{mop}, err)
	return t, err
}

// mayRetry reports whether the plain producer may send a record more than
// once (retries > 0, librdkafka's default, or idempotence): an earlier
// attempt may then have been appended before the last one failed.
func (cp *Copier) mayRetry() bool {
	pc := cp.opts.Producer
	return pc.Retries == nil || *pc.Retries > 0 || pc.Idempotence
}
