package client

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

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
}

// FinalReads runs after every fault is healed: one consumer assigns every
// key from its beginning and polls, recording poll ops, until each key has
// reported its end at or past the high watermark it had when the reads
// began. It fails when ctx expires first, naming the keys not read to the
// end: a partial final read must not pass for a complete one.
//
// Its ops carry Extra "final": true, so that checkers know the final reads
// from the history alone. The assign op is recorded before the high
// watermarks are asked for: every record an op read before it was below the
// high watermark then, so the final reads must return it unless the log lost
// it (checkers' lost-after-read).
func FinalReads(ctx context.Context, opts FinalReadOptions) error {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	c, err := NewConsumer(ConsumerOptions{Bootstrap: opts.Bootstrap, Keys: opts.Keys, Recorder: finalRecorder{opts.Recorder},
		Process: opts.Process, Config: ConsumerConfig{ReadCommitted: opts.ReadCommitted}})
	if err != nil {
		return fmt.Errorf("final reads: %w", err)
	}
	defer c.Close()
	keys := opts.Keys.Keys()
	if err := c.Assign(keys); err != nil {
		return fmt.Errorf("final reads: assign: %w", err)
	}
	high, err := c.highWatermarks(ctx)
	if err != nil {
		return fmt.Errorf("final reads: %w", err)
	}
	pending := make(map[histories.Key]int64, len(high))
	for k, h := range high {
		if h > 0 {
			pending[k] = h
		}
	}
	for len(pending) > 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("final reads: %w before the end of keys %v (want offsets %v)", ctx.Err(), sortedKeys(pending), pending)
		}
		got, err := c.pollOp(ctx, opts.BatchSize, time.Second)
		if err != nil {
			return fmt.Errorf("final reads: %w", err)
		}
		for k, at := range got.eof {
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

// highWatermarks asks the cluster for every key's current end.
func (c *Consumer) highWatermarks(ctx context.Context) (map[histories.Key]int64, error) {
	out := make(map[histories.Key]int64)
	for _, k := range c.opts.Keys.Keys() {
		tp, _ := c.opts.Keys.TP(k)
		var err error
		for attempt := 0; attempt == 0 || (err != nil && ctx.Err() == nil); attempt++ {
			var high int64
			_, high, err = c.kc.QueryWatermarkOffsets(*tp.Topic, tp.Partition, 5000)
			out[k] = high
		}
		if err != nil {
			return nil, fmt.Errorf("high watermark of key %d (%s/%d): %w", k, *tp.Topic, tp.Partition, err)
		}
	}
	return out, nil
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

// finalRecorder marks every op it records as one of the final reads.
type finalRecorder struct{ Recorder }

func (r finalRecorder) Record(op *histories.Op) *histories.Op {
	if op.Extra == nil {
		op.Extra = map[string]json.RawMessage{}
	}
	op.Extra[FinalExtra] = json.RawMessage("true")
	return r.Recorder.Record(op)
}
