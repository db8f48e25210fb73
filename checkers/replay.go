package checkers

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// replay is pass 1's compact copy of the ops pass 2 judges (client
// completions the checker understands), so that pass 2 decodes varints from
// memory instead of parsing the history again: parsing dominates the cost of
// a check. Invokes and nemesis ops, about half of a history, are left out.
// Only what pass 2 reads is kept: index, process, type, f, group, keys, mops,
// rebalance and the rebalance-log extra.
//
// Encoding of one op (v = signed varint, u = unsigned varint):
//
//	u index delta, v process, byte type<<4|f, u group (0 none, else id+1),
//	u len keys, v keys..., u len mops, per mop: byte kind and then
//	send: v key, v value, v offset; poll: u keys, per key v key, u records,
//	per record v offset delta, v value; commit: u keys, per key v key, v offset;
//	byte rebalance (0/1), [u revoked, v..., u assigned, v...],
//	u len rebalance-log bytes, bytes.
type replay struct {
	chunks  [][]byte
	cur     []byte
	groups  []string
	groupID map[string]uint64
	prev    int64 // index of the last op encoded
	ops     int64
}

// replayChunk is the size a chunk is cut at; chunks are never copied when
// the replay grows.
const replayChunk = 1 << 20

func newReplay() *replay {
	return &replay{groupID: map[string]uint64{}, prev: -1, cur: make([]byte, 0, replayChunk)}
}

var (
	typeCodes = []histories.Type{histories.OK, histories.Info, histories.Fail, histories.Invoke}
	fCodes    = []string{histories.FSend, histories.FPoll, histories.FTxn, histories.FAssign,
		histories.FSubscribe, histories.FCommit, histories.FCrash}
	mopCodes = []histories.MopF{histories.MSend, histories.MPoll, histories.MCommit}
)

func code[T comparable](codes []T, x T) byte {
	for i, c := range codes {
		if c == x {
			return byte(i)
		}
	}
	panic(fmt.Sprintf("checkers: no replay code for %v", x)) // callers pass validated ops only
}

// add encodes op, which pass 1 has validated and found to be a client
// completion with a known f.
func (r *replay) add(op *histories.Op) {
	b := r.cur
	b = binary.AppendUvarint(b, uint64(op.Index-r.prev))
	r.prev = op.Index
	b = binary.AppendVarint(b, op.Process)
	b = append(b, code(typeCodes, op.Type)<<4|code(fCodes, op.F))
	b = binary.AppendUvarint(b, r.group(op.Group))
	b = appendKeys(b, op.Keys)
	b = binary.AppendUvarint(b, uint64(len(op.Mops)))
	for i := range op.Mops {
		b = appendMop(b, &op.Mops[i])
	}
	if rb := op.Rebalance; rb != nil {
		b = append(b, 1)
		b = appendKeys(appendKeys(b, rb.Revoked), rb.Assigned)
	} else {
		b = append(b, 0)
	}
	log := op.Extra[rebalanceLogKey]
	b = binary.AppendUvarint(b, uint64(len(log)))
	b = append(b, log...)
	r.ops++
	if len(b) >= replayChunk {
		r.chunks = append(r.chunks, b)
		b = make([]byte, 0, replayChunk+replayChunk/4)
	}
	r.cur = b
}

func (r *replay) group(g string) uint64 {
	if g == "" {
		return 0
	}
	id, ok := r.groupID[g]
	if !ok {
		id = uint64(len(r.groups))
		r.groups = append(r.groups, g)
		r.groupID[g] = id
	}
	return id + 1
}

func appendKeys(b []byte, ks []histories.Key) []byte {
	b = binary.AppendUvarint(b, uint64(len(ks)))
	for _, k := range ks {
		b = binary.AppendVarint(b, k)
	}
	return b
}

func appendMop(b []byte, m *histories.Mop) []byte {
	b = append(b, code(mopCodes, m.F))
	switch m.F {
	case histories.MSend:
		b = binary.AppendVarint(b, m.Key)
		b = binary.AppendVarint(b, m.Value)
		b = binary.AppendVarint(b, m.Offset)
	case histories.MPoll:
		b = binary.AppendUvarint(b, uint64(len(m.Records)))
		for k, rs := range m.Records {
			b = binary.AppendVarint(b, k)
			b = binary.AppendUvarint(b, uint64(len(rs)))
			prev := int64(0)
			for _, rec := range rs {
				b = binary.AppendVarint(b, rec.Offset-prev)
				b = binary.AppendVarint(b, rec.Value)
				prev = rec.Offset
			}
		}
	case histories.MCommit:
		b = binary.AppendUvarint(b, uint64(len(m.Offsets)))
		for k, o := range m.Offsets {
			b = binary.AppendVarint(b, k)
			b = binary.AppendVarint(b, o)
		}
	}
	return b
}

// Scan decodes the replayed ops on a goroutine of their own, batch by
// batch, while f judges the batch before: decoding is a quarter of pass 2.
// Ops reach f in order; an op's memory is reused once f has seen its whole
// batch, so f must not keep it. The replay is read-only, so it can be
// scanned again.
func (r *replay) Scan(f func(*histories.Op) error) error {
	return r.ScanBatches(func(ops []histories.Op, release func()) error {
		defer release()
		for i := range ops {
			if err := f(&ops[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanBatches is Scan a batch at a time: f may read the ops until it
// calls release, which it must do once, then or later, on any goroutine.
func (r *replay) ScanBatches(f func(ops []histories.Op, release func()) error) error {
	free := make(chan *replayBatch, replayBatches)
	full := make(chan *replayBatch, replayBatches) // never blocks: it holds every batch
	stop := make(chan struct{})
	defer close(stop)
	for range replayBatches {
		free <- &replayBatch{}
	}
	go r.decode(free, full, stop)
	for b := range full {
		if err := f(b.ops, func() { free <- b }); err != nil { // free holds every batch: never blocks
			return err
		}
	}
	return nil
}

const (
	// replayBatchOps is how many ops a batch holds: enough that handing
	// batches over costs nothing, few enough to stay in cache.
	replayBatchOps = 1024
	// replayBatchRecords ends a batch early: a final read returns every
	// record of the history in one op, and only its own batch should
	// hold that much.
	replayBatchRecords = 1 << 16
	// replayBatches in flight: one decoding, one judged, one waiting.
	replayBatches = 3
)

// decode fills free batches with the replay's ops in order and queues
// them on full, which it closes at the end or when stop closes.
func (r *replay) decode(free <-chan *replayBatch, full chan<- *replayBatch, stop <-chan struct{}) {
	defer close(full)
	cur := replayCursor{groups: r.groups, prev: -1}
	var b *replayBatch
	for _, c := range append(r.chunks[:len(r.chunks):len(r.chunks)], r.cur) {
		for cur.buf = c; len(cur.buf) > 0; {
			if b == nil {
				select {
				case b = <-free:
				case <-stop:
					return
				}
				b.reset()
			}
			b.ops = append(b.ops, histories.Op{})
			cur.next(&b.arena, &b.ops[len(b.ops)-1])
			if len(b.ops) == replayBatchOps || len(b.arena.recs) >= replayBatchRecords {
				full <- b
				b = nil
			}
		}
	}
	if b != nil {
		full <- b
	}
}

// replayBatch is a run of decoded ops and the memory they share.
type replayBatch struct {
	ops   []histories.Op
	arena replayArena
}

func (b *replayBatch) reset() {
	b.ops = b.ops[:0]
	a := &b.arena
	if cap(a.recs) > 4*replayBatchRecords {
		a.recs = nil // a final read's: let it go
	}
	a.mops, a.recs, a.keys, a.log, a.rebs = a.mops[:0], a.recs[:0], a.keys[:0], a.log[:0], a.rebs[:0]
	a.nr, a.no = 0, 0
}

// replayArena holds the slices and maps of a batch's ops. Its slices only
// grow within a batch: an op keeps a full slice expression of them, which
// stays valid when a later append moves the arena. Maps are reused by
// their number in the batch.
type replayArena struct {
	mops   []histories.Mop
	recs   []histories.Record
	keys   []histories.Key
	log    []byte
	rebs   []histories.Rebalance
	rmaps  []map[histories.Key][]histories.Record
	omaps  []map[histories.Key]int64
	nr, no int // maps of the batch in use
}

// replayCursor reads replay bytes.
type replayCursor struct {
	buf    []byte
	groups []string
	prev   int64
}

func (d *replayCursor) u() uint64 {
	x, n := binary.Uvarint(d.buf)
	d.buf = d.buf[n:]
	return x
}

func (d *replayCursor) v() int64 {
	x, n := binary.Varint(d.buf)
	d.buf = d.buf[n:]
	return x
}

func (d *replayCursor) byte1() byte {
	c := d.buf[0]
	d.buf = d.buf[1:]
	return c
}

// next decodes one op into op, which must be zero, and a's memory.
func (d *replayCursor) next(a *replayArena, op *histories.Op) {
	op.Index = d.prev + int64(d.u())
	d.prev = op.Index
	op.Process = d.v()
	tf := d.byte1()
	op.Type, op.F = typeCodes[tf>>4], fCodes[tf&15]
	if g := d.u(); g > 0 {
		op.Group = d.groups[g-1]
	}
	op.Keys = d.readKeys(a)
	nm := int(d.u())
	start := len(a.mops)
	for range nm {
		m := histories.Mop{F: mopCodes[d.byte1()], Offset: histories.NoOffset}
		switch m.F {
		case histories.MSend:
			m.Key, m.Value, m.Offset = d.v(), d.v(), d.v()
		case histories.MPoll:
			m.Records = d.pollMap(a)
		case histories.MCommit:
			m.Offsets = d.commitMap(a)
		}
		a.mops = append(a.mops, m)
	}
	if nm > 0 {
		op.Mops = a.mops[start:len(a.mops):len(a.mops)]
	}
	if d.byte1() == 1 {
		a.rebs = append(a.rebs, histories.Rebalance{Revoked: d.readKeys(a), Assigned: d.readKeys(a)})
		op.Rebalance = &a.rebs[len(a.rebs)-1]
	}
	if n := int(d.u()); n > 0 {
		start := len(a.log)
		a.log = append(a.log, d.buf[:n]...)
		d.buf = d.buf[n:]
		op.Extra = map[string]json.RawMessage{rebalanceLogKey: a.log[start:len(a.log):len(a.log)]}
	}
}

func (d *replayCursor) readKeys(a *replayArena) []histories.Key {
	n := int(d.u())
	if n == 0 {
		return nil
	}
	start := len(a.keys)
	for range n {
		a.keys = append(a.keys, d.v())
	}
	return a.keys[start:len(a.keys):len(a.keys)]
}

func (d *replayCursor) pollMap(a *replayArena) map[histories.Key][]histories.Record {
	if a.nr == len(a.rmaps) {
		a.rmaps = append(a.rmaps, map[histories.Key][]histories.Record{})
	}
	m := a.rmaps[a.nr]
	a.nr++
	clear(m)
	for range int(d.u()) {
		k := d.v()
		n := int(d.u())
		a.recs = slices.Grow(a.recs, n) // at once: a final read's records would leave copies behind
		start := len(a.recs)
		prev := int64(0)
		for range n {
			o := prev + d.v()
			a.recs = append(a.recs, histories.Record{Offset: o, Value: d.v()})
			prev = o
		}
		m[k] = a.recs[start:len(a.recs):len(a.recs)]
	}
	return m
}

func (d *replayCursor) commitMap(a *replayArena) map[histories.Key]int64 {
	if a.no == len(a.omaps) {
		a.omaps = append(a.omaps, map[histories.Key]int64{})
	}
	m := a.omaps[a.no]
	a.no++
	clear(m)
	for range int(d.u()) {
		k := d.v()
		m[k] = d.v()
	}
	return m
}
