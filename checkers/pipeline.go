package checkers

import (
	"errors"
	"maps"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Decoding a history costs more than judging it, and a Source hands out one
// op at a time, reused for the next. scanAhead overlaps the two on two
// goroutines: the Source's Scan runs on its own goroutine and copies each op
// into a batch that owns its memory; the caller's goroutine runs f over full
// batches in order. A fixed set of batches circulates, so memory stays
// bounded and, once warm, copying allocates nothing.
const (
	batchOps = 512 // ops per batch
	batches  = 8   // batches in circulation
)

// errStopped ends the producer's Scan when the consumer has failed.
var errStopped = errors.New("checkers: scan stopped")

// scanAhead calls f with every op of src in order, as src.Scan would, with
// decoding done ahead on another goroutine. It returns the first error of
// src or f. Ops already in memory gain nothing from it and are scanned
// directly.
func scanAhead(src Source, f func(*histories.Op) error) error {
	if _, inMemory := src.(Ops); inMemory {
		return src.Scan(f)
	}
	full := make(chan *batch, batches)
	free := make(chan *batch, batches)
	for range batches {
		free <- newBatch()
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- produce(src, full, free, stop) }()

	var ferr error
	for b := range full {
		if ferr == nil {
			ferr = b.each(f)
			if ferr != nil {
				close(stop)
			}
		}
		b.reset()
		free <- b
	}
	perr := <-done
	switch {
	case ferr != nil:
		return ferr
	case errors.Is(perr, errStopped):
		return nil
	}
	return perr
}

// produce scans src into batches taken from free and sends them, full or
// last, on full, which it closes at the end.
func produce(src Source, full, free chan *batch, stop chan struct{}) error {
	defer close(full)
	b := <-free
	err := src.Scan(func(op *histories.Op) error {
		b.add(op)
		if len(b.ops) < batchOps {
			return nil
		}
		full <- b
		select {
		case <-stop:
			b = nil
			return errStopped
		default:
		}
		select {
		case b = <-free:
			return nil
		case <-stop:
			b = nil
			return errStopped
		}
	})
	if b != nil && len(b.ops) > 0 {
		full <- b
	}
	return err
}

// batch is a run of ops that own their memory: slices point into the
// batch's slabs and maps come from its pools, all reused after reset.
type batch struct {
	ops   []histories.Op
	mops  []histories.Mop
	recs  []histories.Record
	keys  []histories.Key
	bytes []byte
	rebs  []histories.Rebalance
	rmaps []map[histories.Key][]histories.Record
	omaps []map[histories.Key]int64
	nr    int // rmaps handed out since reset
	no    int // omaps handed out since reset
}

func newBatch() *batch {
	return &batch{ops: make([]histories.Op, 0, batchOps)}
}

func (b *batch) each(f func(*histories.Op) error) error {
	for i := range b.ops {
		if err := f(&b.ops[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *batch) reset() {
	clear(b.ops) // drop references to strings and Extra maps
	b.ops = b.ops[:0]
	b.mops, b.recs, b.keys, b.bytes, b.rebs = b.mops[:0], b.recs[:0], b.keys[:0], b.bytes[:0], b.rebs[:0]
	b.nr, b.no = 0, 0
}

// add appends a copy of op. Slabs may grow by reallocation; ops copied
// earlier keep pointing into the old arrays, which stay valid until reset.
func (b *batch) add(op *histories.Op) {
	c := *op
	c.Mops = b.copyMops(op.Mops)
	c.Keys = b.copyKeys(op.Keys)
	if op.Value != nil {
		start := len(b.bytes)
		b.bytes = append(b.bytes, op.Value...)
		c.Value = b.bytes[start:len(b.bytes):len(b.bytes)]
	}
	if op.Rebalance != nil {
		b.rebs = append(b.rebs, histories.Rebalance{
			Revoked: b.copyKeys(op.Rebalance.Revoked), Assigned: b.copyKeys(op.Rebalance.Assigned)})
		c.Rebalance = &b.rebs[len(b.rebs)-1]
	}
	if op.Extra != nil {
		// Rare (Jepsen's extra fields): a plain deep copy.
		c.Extra = maps.Clone(op.Extra)
		for k, v := range c.Extra {
			c.Extra[k] = append([]byte(nil), v...)
		}
	}
	b.ops = append(b.ops, c)
}

func (b *batch) copyKeys(ks []histories.Key) []histories.Key {
	if ks == nil {
		return nil
	}
	start := len(b.keys)
	b.keys = append(b.keys, ks...)
	return b.keys[start:len(b.keys):len(b.keys)]
}

func (b *batch) copyMops(ms []histories.Mop) []histories.Mop {
	if ms == nil {
		return nil
	}
	start := len(b.mops)
	for i := range ms {
		m := ms[i]
		if m.Records != nil {
			m.Records = b.copyRecords(ms[i].Records)
		}
		if m.Offsets != nil {
			m.Offsets = b.copyOffsets(ms[i].Offsets)
		}
		b.mops = append(b.mops, m)
	}
	return b.mops[start:len(b.mops):len(b.mops)]
}

func (b *batch) copyRecords(src map[histories.Key][]histories.Record) map[histories.Key][]histories.Record {
	if b.nr == len(b.rmaps) {
		b.rmaps = append(b.rmaps, map[histories.Key][]histories.Record{})
	}
	m := b.rmaps[b.nr]
	b.nr++
	clear(m)
	for k, rs := range src {
		start := len(b.recs)
		b.recs = append(b.recs, rs...)
		m[k] = b.recs[start:len(b.recs):len(b.recs)]
	}
	return m
}

func (b *batch) copyOffsets(src map[histories.Key]int64) map[histories.Key]int64 {
	if b.no == len(b.omaps) {
		b.omaps = append(b.omaps, map[histories.Key]int64{})
	}
	m := b.omaps[b.no]
	b.no++
	clear(m)
	maps.Copy(m, src)
	return m
}
