package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// FinalReadOptions configures FinalReads.
type FinalReadOptions struct {
	Bootstrap     string
	Keys          *KeyMap
	Recorder      Recorder
	Process       int64 // a process of its own
	ReadCommitted bool
	BatchSize     int // records per poll op; 0 means 1000
	// Logs, when set, takes librdkafka's own log lines; nil leaves them
	// on stderr.
	Logs *Logs

	callTimeout time.Duration                       // tests: see ConsumerOptions
	wrap        func(consumerHandle) consumerHandle // tests: see ConsumerOptions
}

// FinalReads runs after every fault is healed: one consumer assigns every
// key from its beginning and polls, recording poll ops, until each key has
// reported its end at or past its high watermark, and a fresh measure of the
// high watermarks finds nothing past what was read: with acks<=1 a follower
// that catches up after a heal can raise a watermark after it was measured,
// so the reads go round again until a measure is stable. It fails when ctx
// expires first, naming the keys not read to the end: a partial final read
// must not pass for a complete one.
//
// Every librdkafka call of the final reads is bounded (see consumerHandle),
// so FinalReads returns within ctx plus a grace (HangGrace of the last
// call's timeout; the close is given what is left of ctx, at least
// finalCloseMin). A call that hangs ends the reads with an error naming
// it, after the process's client-hang op.
//
// Its ops carry Extra "final": true, so that checkers know the final reads
// from the history alone, and its polls "hwm-round": n, the measure they
// read towards (1 for the first); the reads stopped because measure n+1 of
// the last round found nothing new. The assign op is recorded before the
// high watermarks are asked for: every record an op read before it was
// below the high watermark then, so the final reads must return it unless
// the log lost it (checkers' lost-after-read).
func FinalReads(ctx context.Context, opts FinalReadOptions) (err error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	rec := &finalRecorder{Recorder: opts.Recorder}
	c, err := NewConsumer(ConsumerOptions{Bootstrap: opts.Bootstrap, Keys: opts.Keys, Recorder: rec,
		Process: opts.Process, Config: ConsumerConfig{ReadCommitted: opts.ReadCommitted},
		Logs: opts.Logs, worker: "final reader " + processList([]int64{opts.Process}),
		callTimeout: opts.callTimeout, wrap: opts.wrap})
	if err != nil {
		return fmt.Errorf("final reads: %w", err)
	}
	defer func() {
		timeout := closeTimeout
		if d, ok := ctx.Deadline(); ok {
			timeout = max(finalCloseMin, min(timeout, time.Until(d)))
		}
		if cerr := c.closeWithin(c.timeout(timeout)); cerr != nil && err == nil {
			err = fmt.Errorf("final reads: close: %w", cerr)
		}
	}()
	if err := c.Assign(opts.Keys.Keys()); err != nil {
		return fmt.Errorf("final reads: assign: %w", err)
	}
	read := map[histories.Key]int64{} // per key, the end it reported
	for {
		high, err := c.highWatermarks(ctx)
		if err != nil {
			return fmt.Errorf("final reads: %w", err)
		}
		pending := beyond(high, read)
		if len(pending) == 0 {
			return nil
		}
		rec.round++
		if err := c.readTo(ctx, opts.BatchSize, pending, read); err != nil {
			return err
		}
	}
}

// beyond is the keys whose high watermark is past where they were read to.
func beyond(high, read map[histories.Key]int64) map[histories.Key]int64 {
	out := map[histories.Key]int64{}
	for k, h := range high {
		if h > read[k] {
			out[k] = h
		}
	}
	return out
}

// readTo polls until every pending key reported its end at or past its
// target, noting in read where each key reported its end.
func (c *Consumer) readTo(ctx context.Context, batch int, pending, read map[histories.Key]int64) error {
	for len(pending) > 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("final reads: %w before the end of keys %v (want offsets %v, read to %v)",
				ctx.Err(), sortedKeys(pending), pending, read)
		}
		got, err := c.pollOp(ctx, batch, time.Second)
		if err != nil {
			return fmt.Errorf("final reads: %w", err)
		}
		for k, at := range got.eof {
			read[k] = max(read[k], at)
			if at >= pending[k] {
				delete(pending, k)
			}
		}
	}
	return nil
}

// pollOp is Poll returning what was fetched.
func (c *Consumer) pollOp(ctx context.Context, max int, wait time.Duration) (*fetched, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	defer c.opMu.Unlock()
	return c.poll(ctx, max, wait)
}

// highWatermarks asks the cluster for every key's current end. A failed
// ask is retried with backoff until ctx expires.
func (c *Consumer) highWatermarks(ctx context.Context) (map[histories.Key]int64, error) {
	out := make(map[histories.Key]int64)
	for _, k := range c.opts.Keys.Keys() {
		high, err := c.highWatermark(ctx, k)
		if err != nil {
			return nil, err
		}
		out[k] = high
	}
	return out, nil
}

// Backoff between asks for a high watermark.
const (
	watermarkBackoff    = 50 * time.Millisecond
	watermarkBackoffMax = time.Second
	watermarkTimeout    = 5 * time.Second
	// finalCloseMin is the least the final reads' close is given, even
	// once ctx has expired.
	finalCloseMin = time.Second
)

func (c *Consumer) highWatermark(ctx context.Context, k histories.Key) (int64, error) {
	tp, _ := c.opts.Keys.TP(k)
	backoff := watermarkBackoff
	for {
		timeout := watermarkTimeout
		if d, ok := ctx.Deadline(); ok {
			timeout = min(timeout, time.Until(d))
		}
		high, err := c.queryHigh(tp, c.timeout(max(time.Millisecond, timeout)))
		if err == nil {
			return high, nil
		}
		if errors.Is(err, ErrClientHang) || errors.Is(err, ErrCrashed) {
			return 0, fmt.Errorf("high watermark of key %d (%s/%d): %w", k, *tp.Topic, tp.Partition, err)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("high watermark of key %d (%s/%d): %w (last error: %w)", k, *tp.Topic, tp.Partition, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, watermarkBackoffMax)
	}
}

// queryHigh is one bounded QueryWatermarkOffsets, taking the op lock as an
// op would; a hang ends the process (hangOp) and is its error.
func (c *Consumer) queryHigh(tp kafka.TopicPartition, timeout time.Duration) (int64, error) {
	if err := c.begin(); err != nil {
		return 0, err
	}
	defer c.opMu.Unlock()
	high, err := callValue(c, "QueryWatermarkOffsets", timeout, func(kc consumerHandle) (int64, error) {
		_, high, err := kc.QueryWatermarkOffsets(*tp.Topic, tp.Partition, int(timeout/time.Millisecond))
		return high, err
	})
	return high, c.hangOr(err)
}

func sortedKeys(m map[histories.Key]int64) []histories.Key {
	var out []histories.Key
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// FinalExtra is the Extra field that marks the ops of the final reads; its
// value is JSON true.
const FinalExtra = "final"

// HWMRoundExtra is the Extra field of a final poll op: which measure of the
// high watermarks it read towards (1 for the first).
const HWMRoundExtra = "hwm-round"

// finalRecorder marks every op it records as one of the final reads, and
// each poll with its round.
type finalRecorder struct {
	Recorder
	round int // written between polls by FinalReads' goroutine only
}

func (r *finalRecorder) Record(op *histories.Op) *histories.Op {
	if op.Extra == nil {
		op.Extra = map[string]json.RawMessage{}
	}
	op.Extra[FinalExtra] = json.RawMessage("true")
	if op.F == histories.FPoll {
		op.Extra[HWMRoundExtra] = json.RawMessage(strconv.Itoa(r.round))
	}
	return r.Recorder.Record(op)
}
