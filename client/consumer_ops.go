package client

import (
	"encoding/json"

	"github.com/kafkachaos/kafkachaos/histories"
)

// ConsumerOps is the book every consumer under test (this package's, the
// Java client's) keeps of its ops: the invoke and completion of each op of
// its one process, and what the current poll op saw move, which its
// completion carries. It is for the goroutine that runs the consumer's
// ops.
type ConsumerOps struct {
	Recorder Recorder
	Process  int64
	Group    string
	// Rebalance is what moved during the current poll op (nil: nothing);
	// Dropped the records it fetched of keys revoked before it processed
	// them (DropRevoked). PollCompletion puts both on the poll's
	// completion; RecordPoll resets them.
	Rebalance *histories.Rebalance
	Dropped   map[histories.Key][]histories.Record
}

// Fetched is what one poll op read.
type Fetched struct {
	Records map[histories.Key][]histories.Record
	Next    map[histories.Key]int64 // offset after the last record, per key
	N       int
}

// NewFetched is an empty Fetched.
func NewFetched() *Fetched {
	return &Fetched{Records: map[histories.Key][]histories.Record{}, Next: map[histories.Key]int64{}}
}

// Add appends record r of key k.
func (f *Fetched) Add(k histories.Key, r histories.Record) {
	f.Records[k] = append(f.Records[k], r)
	f.Next[k] = r.Offset + 1
	f.N++
}

// Invoke records the invoke of an op f of the process.
func (b *ConsumerOps) Invoke(f string, mops []histories.Mop, keys []histories.Key) *histories.Op {
	return b.Recorder.Record(&histories.Op{Process: b.Process, Type: histories.Invoke, F: f,
		Mops: mops, Keys: keys, Group: b.Group})
}

// Complete records the completion of inv as t with mops; err, when set,
// is the op's error.
func (b *ConsumerOps) Complete(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) *histories.Op {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops, Keys: inv.Keys, Group: inv.Group}
	if err != nil {
		op.Error = err.Error()
	}
	return b.Recorder.Record(op)
}

// Rebalanced is the current poll's Rebalance, begun if it has none.
func (b *ConsumerOps) Rebalanced() *histories.Rebalance {
	if b.Rebalance == nil {
		b.Rebalance = &histories.Rebalance{}
	}
	return b.Rebalance
}

// DropRevoked takes what got holds of key k, revoked before the poll
// processed it, out of got and into Dropped, for the op's ExtraRevoked.
// It reports whether got held any record of k.
func (b *ConsumerOps) DropRevoked(k histories.Key, got *Fetched) bool {
	recs := got.Records[k]
	if len(recs) == 0 {
		return false
	}
	if b.Dropped == nil {
		b.Dropped = map[histories.Key][]histories.Record{}
	}
	b.Dropped[k] = append(b.Dropped[k], recs...)
	got.N -= len(recs)
	delete(got.Records, k)
	delete(got.Next, k)
	return true
}

// PollCompletion is the completion op of poll inv, not yet recorded.
func (b *ConsumerOps) PollCompletion(inv *histories.Op, t histories.Type, mops []histories.Mop, err error) *histories.Op {
	op := &histories.Op{Process: inv.Process, Type: t, F: inv.F, Mops: mops, Group: inv.Group, Rebalance: b.Rebalance}
	if err != nil {
		op.Error = err.Error()
	}
	if len(b.Dropped) > 0 {
		SetExtra(op, ExtraRevoked, RecordsJSON(b.Dropped))
	}
	return op
}

// RecordPoll records op, a poll's completion, and resets what the poll
// saw move.
func (b *ConsumerOps) RecordPoll(op *histories.Op) {
	b.Recorder.Record(op)
	b.Rebalance, b.Dropped = nil, nil
}

// CommitCompletion is the completion op of commit inv, not yet recorded:
// ok with the keys whose commit is proven (committed), the others in its
// ExtraUncommitted; when none is proven, of type none with mops, the
// offsets it was asked to commit. err, when set, is the commit's error.
func (b *ConsumerOps) CommitCompletion(inv *histories.Op, mops []histories.Mop, committed, unproven map[histories.Key]int64, none histories.Type, err error) *histories.Op {
	op := &histories.Op{Process: inv.Process, Type: histories.OK, F: inv.F, Group: inv.Group,
		Mops: []histories.Mop{{F: histories.MCommit, Offsets: committed}}}
	switch {
	case len(committed) == 0:
		op.Type, op.Mops = none, mops
	case len(unproven) > 0:
		op.Extra = map[string]json.RawMessage{ExtraUncommitted: OffsetsJSON(unproven)}
	}
	if err != nil {
		op.Error = err.Error()
	}
	return op
}
