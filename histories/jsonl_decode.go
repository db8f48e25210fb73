package histories

import (
	"encoding/json"
	"strconv"
)

// decoder turns JSONL lines into Ops. It is not safe for concurrent use.
//
// Its memory mode says who owns a decoded op's slices and maps: with
// ownFresh each op owns its own (Reader.Next); with sharePerBlock the
// records, mops and keys of every op of a block of lines live in slabs, and
// its maps come from pools, all reclaimed by begin: Scan is then nearly
// allocation-free, and the ops of one block stay valid together while
// workers decode other blocks.
type decoder struct {
	mode   memMode
	slab   []Record
	mopBuf []Mop // backing array of Mops
	keyBuf []Key // backing array of Keys
	// Maps handed out since the last reclaim: the used counts say how many
	// of each pool are taken.
	recPool  []map[Key][]Record
	offPool  []map[Key]int64
	recsUsed int
	offsUsed int
	intern   map[string]string // f and group names, so repeated ones do not allocate
	s        jscan
}

// memMode is a decoder's memory mode (see decoder).
type memMode int

const (
	ownFresh memMode = iota
	sharePerBlock
)

func newDecoder(mode memMode) *decoder {
	return &decoder{mode: mode, intern: make(map[string]string)}
}

// begin reclaims the memory of every op decoded so far.
func (d *decoder) begin() {
	d.slab, d.mopBuf, d.keyBuf = d.slab[:0], d.mopBuf[:0], d.keyBuf[:0]
	d.recsUsed, d.offsUsed = 0, 0
}

// name returns b as a string, shared with earlier identical names.
func (d *decoder) name(b []byte) string {
	switch string(b) {
	case FSend:
		return FSend
	case FPoll:
		return FPoll
	case FTxn:
		return FTxn
	case FCommit:
		return FCommit
	case FAssign:
		return FAssign
	case FSubscribe:
		return FSubscribe
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.intern) < 4096 {
		d.intern[s] = s
	}
	return s
}

// reset clears op for decoding into it; an op that owns its memory gets
// fresh slabs.
func (d *decoder) reset(op *Op) {
	*op = Op{}
	if d.mode == ownFresh {
		d.slab, d.mopBuf, d.keyBuf = nil, nil, nil
	}
}

// Which top-level fields an op must have.
const (
	seenIndex = 1 << iota
	seenType
	seenProcess
	seenF
)

// decode parses one line into op. Errors are *fieldError or *scanError.
func (d *decoder) decode(line []byte, op *Op) error {
	d.reset(op)
	if d.fast(line, op) {
		return nil
	}
	return d.general(line, op)
}

// general decodes any line the format allows, fields in any order, and
// says what is wrong with the others.
func (d *decoder) general(line []byte, op *Op) error {
	s := &d.s
	s.b, s.i = line, 0
	seen := 0
	valStart, valEnd := -1, -1
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "index":
			op.Index, err = s.int()
			seen |= seenIndex
		case "time":
			op.Time, err = s.int()
		case "process":
			op.Process, err = s.int()
			seen |= seenProcess
		case "type":
			op.Type, err = d.opType()
			seen |= seenType
		case "f":
			var f []byte
			f, err = s.str()
			op.F = d.name(f)
			seen |= seenF
		case "value":
			s.ws()
			if seen&seenF != 0 && structured(op.F) {
				err = d.value(op, nil) // f came first, as this package writes it: no second pass
				break
			}
			valStart = s.i
			err = s.skip(0)
			valEnd = s.i
		case "group":
			var g []byte
			g, err = s.str()
			op.Group = d.name(g)
		case "rebalance":
			op.Rebalance, err = d.rebalance()
		case "error":
			var e []byte
			e, err = s.str()
			op.Error = string(e)
		default:
			err = d.extra(op, key)
		}
		if err != nil {
			return inField(string(key), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.errorf("trailing data after the op")
	}
	if err := missing(seen); err != nil {
		return err
	}
	if valStart >= 0 {
		s.i = valStart
		if err := d.value(op, line[valStart:valEnd]); err != nil {
			return inField("value", err)
		}
	}
	if op.F == FClientHang {
		_, err := op.ClientHang()
		return err
	}
	return nil
}

func missing(seen int) error {
	for _, f := range []struct {
		bit  int
		name string
	}{{seenIndex, "index"}, {seenType, "type"}, {seenProcess, "process"}, {seenF, "f"}} {
		if seen&f.bit == 0 {
			return &fieldError{field: f.name, msg: "missing"}
		}
	}
	return nil
}

func (d *decoder) opType() (Type, error) {
	b, err := d.s.str()
	if err != nil {
		return "", err
	}
	switch string(b) {
	case "invoke":
		return Invoke, nil
	case "ok":
		return OK, nil
	case "fail":
		return Fail, nil
	case "info":
		return Info, nil
	}
	return "", &fieldError{field: "type", msg: "unknown op type " + strconv.Quote(string(b))}
}

func (d *decoder) extra(op *Op, key []byte) error {
	raw, err := d.s.rawValue()
	if err != nil {
		return err
	}
	if op.Extra == nil {
		op.Extra = make(map[string]json.RawMessage)
	}
	op.Extra[string(key)] = raw
	return nil
}

// structured reports whether the value of an op with f is decoded (mops or
// keys) rather than kept as raw JSON.
func structured(f string) bool {
	switch f {
	case FSend, FPoll, FTxn, FCommit, FAssign, FSubscribe:
		return true
	}
	return false
}

// value decodes the op's value, whose shape depends on op.F (known once
// f is read, which may come after the value).
func (d *decoder) value(op *Op, raw []byte) error {
	switch op.F {
	case FSend, FPoll, FTxn, FCommit:
		return d.mops(op)
	case FAssign, FSubscribe:
		start := len(d.keyBuf)
		keys, err := d.keyList(d.keyBuf)
		if keys != nil {
			d.keyBuf = keys
			op.Keys = keys[start:len(keys):len(keys)]
		}
		return err
	}
	op.Value = append(json.RawMessage(nil), raw...)
	return nil
}

// keyList reads [k1, k2, ...] or null, appending to dst; no key appended
// gives nil.
func (d *decoder) keyList(dst []Key) ([]Key, error) {
	s := &d.s
	if s.null() {
		return nil, nil
	}
	n := len(dst)
	err := s.array(func(int) error {
		k, err := s.int()
		if err != nil {
			return err
		}
		dst = append(dst, k)
		return nil
	})
	if err != nil || len(dst) == n {
		return nil, err
	}
	return dst, nil
}

func (d *decoder) rebalance() (*Rebalance, error) {
	s := &d.s
	if s.null() {
		return nil, nil
	}
	r := &Rebalance{}
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "revoked":
			r.Revoked, err = d.keyList(nil)
		case "assigned":
			r.Assigned, err = d.keyList(nil)
		default:
			err = s.errorf("unknown rebalance field %q", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// mops reads the array of micro-ops into op.Mops, a capacity-limited part
// of mopBuf (appends by callers cannot clobber another op's mops).
func (d *decoder) mops(op *Op) error {
	s := &d.s
	if s.null() {
		return nil
	}
	start := len(d.mopBuf)
	err := s.array(func(i int) error {
		if err := d.mop(d.nextMop()); err != nil {
			return inField("value["+strconv.Itoa(i)+"]", err)
		}
		return nil
	})
	if end := len(d.mopBuf); end > start { // [] decodes as no micro-ops, like null
		op.Mops = d.mopBuf[start:end:end]
	}
	return err
}

// nextMop appends a zeroed mop to mopBuf.
func (d *decoder) nextMop() *Mop {
	d.mopBuf = append(d.mopBuf, Mop{Offset: NoOffset})
	return &d.mopBuf[len(d.mopBuf)-1]
}

// recordsMap returns an empty map for poll records, from the pool when
// reusing memory.
func (d *decoder) recordsMap() map[Key][]Record {
	if d.mode == ownFresh {
		return make(map[Key][]Record)
	}
	if d.recsUsed == len(d.recPool) {
		d.recPool = append(d.recPool, make(map[Key][]Record))
	}
	m := d.recPool[d.recsUsed]
	d.recsUsed++
	clear(m)
	return m
}

// offsetsMap is recordsMap for commit offsets.
func (d *decoder) offsetsMap() map[Key]int64 {
	if d.mode == ownFresh {
		return make(map[Key]int64)
	}
	if d.offsUsed == len(d.offPool) {
		d.offPool = append(d.offPool, make(map[Key]int64))
	}
	m := d.offPool[d.offsUsed]
	d.offsUsed++
	clear(m)
	return m
}

// mop reads one micro-op object.
func (d *decoder) mop(m *Mop) error {
	s := &d.s
	var hasKey, hasValue bool
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "f":
			err = d.mopF(m)
		case "key":
			m.Key, err = s.int()
			hasKey = true
		case "value":
			m.Value, err = s.int()
			hasValue = true
		case "offset":
			m.Offset, err = s.intOrNull()
		case "records":
			m.Records, err = d.records()
		case "offsets":
			m.Offsets, err = d.offsets()
		default:
			err = s.errorf("unknown micro-op field %q", key)
		}
		return err
	})
	if err != nil {
		return err
	}
	return checkMop(m, hasKey, hasValue)
}

// checkMop says what a well-formed micro-op of its kind lacks or must not have.
func checkMop(m *Mop, hasKey, hasValue bool) error {
	switch m.F {
	case "":
		return &scanError{msg: "micro-op without f"}
	case MSend:
		if !hasKey || !hasValue {
			return &scanError{msg: "send micro-op needs key and value"}
		}
		if m.Records != nil || m.Offsets != nil {
			return &scanError{msg: "send micro-op with records or offsets"}
		}
	case MPoll:
		if hasKey || hasValue || m.Offsets != nil || m.Offset != NoOffset {
			return &scanError{msg: "poll micro-op may only have records"}
		}
	case MCommit:
		if hasKey || hasValue || m.Records != nil || m.Offset != NoOffset {
			return &scanError{msg: "commit micro-op may only have offsets"}
		}
	}
	return nil
}

func (d *decoder) mopF(m *Mop) error {
	b, err := d.s.str()
	if err != nil {
		return err
	}
	switch string(b) {
	case "send":
		m.F = MSend
	case "poll":
		m.F = MPoll
	case "commit":
		m.F = MCommit
	default:
		return d.s.errorf("unknown micro-op %q", b)
	}
	return nil
}

// keyed reads {"k": value, ...}, the map shape of records and offsets:
// each name must be a decimal integer key, given once; value reads its
// value. what names the map in the error for a repeated key.
func (d *decoder) keyed(what string, has func(Key) bool, value func(Key) error) error {
	return d.s.object(func(name []byte) error {
		k, err := strconv.ParseInt(string(name), 10, 64)
		if err != nil {
			return d.s.errorf("key %q is not an integer", name)
		}
		if has(k) {
			return d.s.errorf("key %d twice in %s", k, what)
		}
		return value(k)
	})
}

// records reads {"k": [[offset, value], ...], ...}.
func (d *decoder) records() (map[Key][]Record, error) {
	if d.s.null() {
		return nil, nil
	}
	m := d.recordsMap()
	err := d.keyed("records", func(k Key) bool { _, ok := m[k]; return ok }, func(k Key) error {
		recs, err := d.recordList()
		m[k] = recs
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// recordList reads [[offset, value], ...] into the slab and returns its
// part of the slab (capacity-limited, so appends by callers cannot clobber
// the next key's records). An empty list gives nil.
func (d *decoder) recordList() ([]Record, error) {
	s := &d.s
	start := len(d.slab)
	err := s.array(func(int) error {
		r, err := d.record()
		if err != nil {
			return err
		}
		d.slab = append(d.slab, r)
		return nil
	})
	if err != nil || len(d.slab) == start {
		return nil, err
	}
	return d.slab[start:len(d.slab):len(d.slab)], nil
}

// record reads one [offset, value] pair.
func (d *decoder) record() (Record, error) {
	s := &d.s
	if err := s.expect('['); err != nil {
		return Record{}, err
	}
	off, err := s.intOrNull()
	if err != nil {
		return Record{}, err
	}
	if err := s.expect(','); err != nil {
		return Record{}, err
	}
	v, err := s.int()
	if err != nil {
		return Record{}, err
	}
	return Record{Offset: off, Value: v}, s.expect(']')
}

// offsets reads {"k": offset, ...}.
func (d *decoder) offsets() (map[Key]int64, error) {
	if d.s.null() {
		return nil, nil
	}
	m := d.offsetsMap()
	err := d.keyed("offsets", func(k Key) bool { _, ok := m[k]; return ok }, func(k Key) (err error) {
		m[k], err = d.s.int()
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
