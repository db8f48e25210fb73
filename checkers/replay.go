package checkers

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

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

// Scan decodes the replayed ops in order into one reused op, as a Source
// does. The replay is read-only, so it can be scanned again.
func (r *replay) Scan(f func(*histories.Op) error) error {
	d := replayDecoder{groups: r.groups, prev: -1}
	for _, c := range append(r.chunks[:len(r.chunks):len(r.chunks)], r.cur) {
		for d.buf = c; len(d.buf) > 0; {
			d.next()
			if err := f(&d.op); err != nil {
				return err
			}
		}
	}
	return nil
}

// replayDecoder turns replay bytes back into ops. Its op, slices and maps
// are reused from op to op.
type replayDecoder struct {
	buf    []byte
	groups []string
	prev   int64
	op     histories.Op
	mops   []histories.Mop
	recs   []histories.Record
	keys   []histories.Key
	log    []byte
	reb    histories.Rebalance
	rmaps  []map[histories.Key][]histories.Record
	omaps  []map[histories.Key]int64
}

func (d *replayDecoder) u() uint64 {
	x, n := binary.Uvarint(d.buf)
	d.buf = d.buf[n:]
	return x
}

func (d *replayDecoder) v() int64 {
	x, n := binary.Varint(d.buf)
	d.buf = d.buf[n:]
	return x
}

func (d *replayDecoder) byte1() byte {
	c := d.buf[0]
	d.buf = d.buf[1:]
	return c
}

func (d *replayDecoder) next() {
	op := &d.op
	*op = histories.Op{}
	op.Index = d.prev + int64(d.u())
	d.prev = op.Index
	op.Process = d.v()
	tf := d.byte1()
	op.Type, op.F = typeCodes[tf>>4], fCodes[tf&15]
	if g := d.u(); g > 0 {
		op.Group = d.groups[g-1]
	}
	d.recs, d.keys = d.recs[:0], d.keys[:0]
	op.Keys = d.readKeys()
	nm := int(d.u())
	d.mops = d.mops[:0]
	nr, no := 0, 0
	for range nm {
		m := histories.Mop{F: mopCodes[d.byte1()], Offset: histories.NoOffset}
		switch m.F {
		case histories.MSend:
			m.Key, m.Value, m.Offset = d.v(), d.v(), d.v()
		case histories.MPoll:
			m.Records = d.pollMap(nr)
			nr++
		case histories.MCommit:
			m.Offsets = d.commitMap(no)
			no++
		}
		d.mops = append(d.mops, m)
	}
	if nm > 0 {
		op.Mops = d.mops
	}
	if d.byte1() == 1 {
		d.reb = histories.Rebalance{Revoked: d.readKeys(), Assigned: d.readKeys()}
		op.Rebalance = &d.reb
	}
	if n := int(d.u()); n > 0 {
		d.log = append(d.log[:0], d.buf[:n]...)
		d.buf = d.buf[n:]
		op.Extra = map[string]json.RawMessage{rebalanceLogKey: d.log}
	}
}

func (d *replayDecoder) readKeys() []histories.Key {
	n := int(d.u())
	if n == 0 {
		return nil
	}
	start := len(d.keys)
	for range n {
		d.keys = append(d.keys, d.v())
	}
	return d.keys[start:len(d.keys):len(d.keys)]
}

func (d *replayDecoder) pollMap(i int) map[histories.Key][]histories.Record {
	if i == len(d.rmaps) {
		d.rmaps = append(d.rmaps, map[histories.Key][]histories.Record{})
	}
	m := d.rmaps[i]
	clear(m)
	for range int(d.u()) {
		k := d.v()
		start := len(d.recs)
		prev := int64(0)
		for range int(d.u()) {
			o := prev + d.v()
			d.recs = append(d.recs, histories.Record{Offset: o, Value: d.v()})
			prev = o
		}
		m[k] = d.recs[start:len(d.recs):len(d.recs)]
	}
	return m
}

func (d *replayDecoder) commitMap(i int) map[histories.Key]int64 {
	if i == len(d.omaps) {
		d.omaps = append(d.omaps, map[histories.Key]int64{})
	}
	m := d.omaps[i]
	clear(m)
	for range int(d.u()) {
		k := d.v()
		m[k] = d.v()
	}
	return m
}
