package chaostest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

const (
	// drainQuiet is how long the output must stand still, once the code
	// has caught up, before it is stopped.
	drainQuiet = 500 * time.Millisecond
	// drainCall bounds each watermark and committed-offset query.
	drainCall = 2 * time.Second
)

// drain lets the code catch up after the faults, at most Options.Drain:
// it is done once the code's group (Env.Group) has committed every input
// partition to its end and the output's end offsets have stood still for
// drainQuiet. Counting output records instead would end too soon for code
// that duplicates. Code that has not caught up by then is not an error of
// the run: the final reads show what it delivered, and the verdict names
// the input it had not consumed (Verdict.Unconsumed), which is not lost.
func (r *run) drain(ctx context.Context) error {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": r.prov.Bootstrap(), "group.id": r.s.Workload.Group,
		"enable.auto.commit": false, "log_level": 0})
	if err != nil {
		return fmt.Errorf("drain: %w", err)
	}
	w := &watch{c: c, in: r.s.Keys.Topic, out: r.s.Keys.OutputTopic, parts: r.s.Keys.Count}
	defer w.close()
	deadline := time.Now().Add(r.opts.Drain)
	last, since := int64(-1), time.Now()
	var lastErr error
	for time.Now().Before(deadline) {
		st, err := w.state()
		switch {
		case w.abandoned:
			return fmt.Errorf("drain: %w", err)
		case err != nil:
			// A broker still settling after the heal: measure again.
			lastErr = err
		case st.outEnd != last:
			last, since = st.outEnd, time.Now()
		}
		if err == nil && st.committedAll && time.Since(since) >= drainQuiet {
			return nil
		}
		if !ctxsleep.For(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
	r.drained = fmt.Sprintf("the code had not caught up with the input %v after the faults (its group had not committed every input partition to its end)", r.opts.Drain)
	if lastErr != nil {
		r.drained += fmt.Sprintf("; the last measure failed: %v", lastErr)
	}
	return nil
}

// watch measures the input and output topics and the code's group.
type watch struct {
	c         *kafka.Consumer
	in, out   string
	parts     int
	abandoned bool // a call hung: the handle must not be used or closed
}

type progress struct {
	outEnd       int64 // sum of the output partitions' high watermarks
	committedAll bool  // the group committed every input partition to its end
}

func (w *watch) state() (progress, error) {
	var p progress
	p.committedAll = true
	committed, err := w.committed()
	if err != nil {
		return p, err
	}
	for _, tp := range committed {
		inEnd, err := w.high(w.in, tp.Partition)
		if err != nil {
			return p, err
		}
		if tp.Offset < 0 || int64(tp.Offset) < inEnd {
			p.committedAll = false
		}
	}
	for i := range w.parts {
		h, err := w.high(w.out, int32(i))
		if err != nil {
			return p, err
		}
		p.outEnd += h
	}
	return p, nil
}

// committed is the group's committed offset of each input partition
// (negative: none).
func (w *watch) committed() (committed []kafka.TopicPartition, err error) {
	tps := make([]kafka.TopicPartition, w.parts)
	for i := range w.parts {
		tps[i] = kafka.TopicPartition{Topic: &w.in, Partition: int32(i)}
	}
	err = w.bounded("Committed", func() (err error) {
		committed, err = w.c.Committed(tps, int(drainCall.Milliseconds()))
		return err
	})
	return committed, err
}

func (w *watch) high(topic string, part int32) (h int64, err error) {
	err = w.bounded("QueryWatermarkOffsets", func() (err error) {
		_, h, err = w.c.QueryWatermarkOffsets(topic, part, int(drainCall.Milliseconds()))
		return err
	})
	return h, err
}

// bounded runs a librdkafka call that may outlive its timeout
// (client.Bounded); after a hang the handle is abandoned.
func (w *watch) bounded(call string, fn func() error) error {
	err := client.Bounded(call, drainCall, fn)
	if errors.Is(err, client.ErrClientHang) {
		w.abandoned = true
	}
	return err
}

func (w *watch) close() {
	if !w.abandoned {
		w.c.Close()
	}
}
