// Package ctp is a consume-transform-produce service written as a team
// would write it with confluent-kafka-go, and two variants with the bugs
// chaostest exists to catch. Each is a chaostest.Service: its tests are
// the examples of chaostest (ctp_test.go).
//
//   - Service is Kafka's exactly-once recipe: a read_committed consumer, a
//     transactional producer, and the consumed offsets committed in the
//     output transaction (sendOffsetsToTransaction).
//   - CommitFirst commits the consumed offsets before it processes the
//     records: a crash in between loses them (at-most-once).
//   - AcksOne commits after processing, but its producer is acks=1: a
//     leader that dies before its followers copied an acknowledged record
//     loses it (at-least-once does not hold on real brokers).
//
// Every record is "transformed" by copying it to the output partition
// numbered as its input's, value unchanged, key and a header added: the
// contract chaostest.Env states.
package ctp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/chaostest"
)

const (
	// batchMax and batchWait shape one batch: up to batchMax records, or
	// what came within batchWait.
	batchMax  = 50
	batchWait = 50 * time.Millisecond
	// callTimeout bounds each transactional call.
	callTimeout = 5 * time.Second
)

// Service copies the input to the output exactly once.
func Service(ctx context.Context, env chaostest.Env) error {
	cl, err := open(env, kafka.ConfigMap{"transactional.id": env.TransactionalID, "transaction.timeout.ms": 10000})
	if err != nil {
		return err
	}
	defer cl.close()
	if err := cl.call(ctx, cl.p.InitTransactions); err != nil {
		return err
	}
	return serve(ctx, cl.c, env, func(batch []*kafka.Message) error { return copyInTransaction(ctx, cl, env, batch) })
}

// copyInTransaction writes batch and commits its offsets as one
// transaction. Any error ends the service, which its supervisor starts
// again: the new producer's InitTransactions aborts what this one left
// open, and the new consumer resumes from the committed offsets.
func copyInTransaction(ctx context.Context, cl *clients, env chaostest.Env, batch []*kafka.Message) error {
	if err := cl.p.BeginTransaction(); err != nil {
		return err
	}
	for _, m := range batch {
		if err := cl.p.Produce(transform(env, m), nil); err != nil {
			return err
		}
	}
	md, err := cl.c.GetConsumerGroupMetadata()
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // crashed mid-transaction: nothing is committed
	}
	if err := cl.call(ctx, func(cctx context.Context) error { return cl.p.SendOffsetsToTransaction(cctx, next(batch), md) }); err != nil {
		return err
	}
	return cl.call(ctx, cl.p.CommitTransaction)
}

// CommitFirst is Service's at-least-once sibling with the classic bug: it
// commits a batch's offsets, then processes the records. A crash while it
// processes loses the rest of the batch: the group has moved past them.
func CommitFirst(ctx context.Context, env chaostest.Env) error {
	cl, err := open(env, kafka.ConfigMap{"acks": "all", "enable.idempotence": true})
	if err != nil {
		return err
	}
	defer cl.close()
	c, p := cl.c, cl.p
	return serve(ctx, c, env, func(batch []*kafka.Message) error {
		if _, err := c.CommitOffsets(next(batch)); err != nil { // the bug: before processing
			return err
		}
		for _, m := range batch {
			if ctx.Err() != nil {
				return nil // crashed while processing
			}
			if err := p.Produce(transform(env, m), nil); err != nil {
				return err
			}
			time.Sleep(processing)
		}
		p.Flush(int(callTimeout.Milliseconds()))
		return nil
	})
}

// processing is the work each record costs.
const processing = 2 * time.Millisecond

// AcksOne commits after processing, as at-least-once requires, but
// acknowledges records on the leader alone (acks=1).
func AcksOne(ctx context.Context, env chaostest.Env) error {
	cl, err := open(env, kafka.ConfigMap{"acks": "1", "go.delivery.reports": true})
	if err != nil {
		return err
	}
	defer cl.close()
	return serve(ctx, cl.c, env, func(batch []*kafka.Message) error {
		if err := produceAll(ctx, cl.p, env, batch); err != nil {
			return err
		}
		_, err := cl.c.CommitOffsets(next(batch))
		return err
	})
}

// produceAll sends batch and waits for every delivery report: an error
// ends the service before it commits, so the batch is processed again.
func produceAll(ctx context.Context, p *kafka.Producer, env chaostest.Env, batch []*kafka.Message) error {
	reports := make(chan kafka.Event, len(batch))
	for _, m := range batch {
		if err := p.Produce(transform(env, m), reports); err != nil {
			return err
		}
	}
	wait := time.NewTimer(callTimeout)
	defer wait.Stop()
	for range batch {
		select {
		case ev := <-reports:
			if m, ok := ev.(*kafka.Message); ok && m.TopicPartition.Error != nil {
				return m.TopicPartition.Error
			}
		case <-ctx.Done():
			return ctx.Err() // crashed before the reports came: commit nothing
		case <-wait.C:
			return errors.New("ctp: delivery reports did not come within the call timeout")
		}
	}
	return nil
}

// clients are one start's consumer and producer, and the calls still in
// flight on the producer.
type clients struct {
	c     *kafka.Consumer
	p     *kafka.Producer
	calls sync.WaitGroup
}

// open opens the service's consumer (read_committed, in env.Group,
// committing only when told) and its producer with the settings given.
func open(env chaostest.Env, producer kafka.ConfigMap) (*clients, error) {
	// A crashed start's member leaves the group when its session times
	// out, and a rebalance waits for members up to max.poll.interval.ms:
	// short ones let the next start take over within seconds.
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": env.Bootstrap, "group.id": env.Group,
		"isolation.level": "read_committed", "enable.auto.commit": false, "auto.offset.reset": "earliest",
		"session.timeout.ms": 2000, "heartbeat.interval.ms": 500, "max.poll.interval.ms": 4000, "log_level": 0})
	if err != nil {
		return nil, err
	}
	// A request to a dead broker is given up after 3s rather than 30-60s:
	// the service retries sooner, and its tests stay short.
	cfg := kafka.ConfigMap{"bootstrap.servers": env.Bootstrap, "go.delivery.reports": false,
		"request.timeout.ms": 3000, "socket.timeout.ms": 3000, "log_level": 0}
	for k, v := range producer {
		cfg[k] = v
	}
	p, err := kafka.NewProducer(&cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &clients{c: c, p: p}, nil
}

// call runs a transactional call with its own bound. A crash (ctx
// cancelled) does not wait for it, as a dying process would not: the call
// is left to end in the background (librdkafka's transactional calls can
// outlive their timeout when a coordinator dies), and close waits for it
// before it closes the producer the call uses.
func (cl *clients) call(ctx context.Context, fn func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	done := make(chan error, 1)
	cl.calls.Add(1)
	go func() {
		defer cl.calls.Done()
		defer cancel()
		done <- fn(cctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close ends the clients as a crash would: the producer's queued and
// in-flight messages are purged rather than flushed (a transaction left
// open is aborted by the next start's InitTransactions), and both close in
// the background, after any call left running, since a consumer's close
// waits for its group coordinator, which may be the broker that just died,
// and a crashed process waits for nothing.
func (cl *clients) close() {
	cl.p.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	go func() {
		cl.calls.Wait()
		cl.p.Close()
		cl.c.Close()
	}()
}

// serve subscribes c to the input and hands each batch to handle, until
// ctx ends or handle fails.
func serve(ctx context.Context, c *kafka.Consumer, env chaostest.Env, handle func([]*kafka.Message) error) error {
	if err := c.Subscribe(env.Input, nil); err != nil {
		return err
	}
	for ctx.Err() == nil {
		batch, err := poll(ctx, c)
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := handle(batch); err != nil {
				return err
			}
		}
	}
	return nil
}

// poll gathers one batch: up to batchMax records, or what came within
// batchWait of the first.
func poll(ctx context.Context, c *kafka.Consumer) ([]*kafka.Message, error) {
	var batch []*kafka.Message
	deadline := time.Now().Add(batchWait)
	for len(batch) < batchMax && ctx.Err() == nil {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		switch ev := c.Poll(int(left.Milliseconds()) + 1).(type) {
		case *kafka.Message:
			if ev.TopicPartition.Error != nil {
				return nil, ev.TopicPartition.Error
			}
			batch = append(batch, ev)
		case kafka.Error:
			if ev.IsFatal() {
				return nil, ev
			}
		}
	}
	return batch, nil
}

// transform is the service's work: the record goes to the output
// partition numbered as its input's, with its value unchanged.
func transform(env chaostest.Env, m *kafka.Message) *kafka.Message {
	return &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &env.Output, Partition: m.TopicPartition.Partition},
		Key: m.Key, Value: m.Value, Headers: []kafka.Header{{Key: "transformed-by", Value: []byte("ctp")}}}
}

// next is the offsets to commit after batch: one past the last record of
// each partition.
func next(batch []*kafka.Message) []kafka.TopicPartition {
	last := map[int32]kafka.TopicPartition{}
	for _, m := range batch {
		tp := m.TopicPartition
		tp.Offset++
		last[tp.Partition] = tp
	}
	out := make([]kafka.TopicPartition, 0, len(last))
	for _, tp := range last {
		out = append(out, tp)
	}
	return out
}
