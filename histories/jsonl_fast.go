package histories

import "math"

// The fast path reads a client op in exactly the layout AppendJSON writes
// (fields in its order, no white space, no escapes, no extra fields): byte
// for byte, with no field-name dispatch and no callbacks, which is most of
// the general decoder's cost. Any other line, including every malformed
// one, is left to the general decoder, so the fast path decides nothing it
// could decide differently: it only ever accepts a line the general
// decoder reads into the same op.

// fastMark is how much of a decoder's memory was in use, so that a fast
// read that gives up returns what it took.
type fastMark struct{ slab, mops, keys, recs, offs int }

func (d *decoder) mark() fastMark {
	return fastMark{len(d.slab), len(d.mopBuf), len(d.keyBuf), d.recsUsed, d.offsUsed}
}

func (d *decoder) release(m fastMark) {
	d.slab, d.mopBuf, d.keyBuf = d.slab[:m.slab], d.mopBuf[:m.mops], d.keyBuf[:m.keys]
	d.recsUsed, d.offsUsed = m.recs, m.offs
}

// fast decodes line into op, which must be reset, and reports whether it
// could; when it could not, op is reset again and d's memory released.
func (d *decoder) fast(line []byte, op *Op) bool {
	m := d.mark()
	p := fastScan{b: line}
	if d.fastOp(&p, op) && p.i == len(line) {
		return true
	}
	d.release(m)
	d.reset(op)
	return false
}

func (d *decoder) fastOp(p *fastScan, op *Op) bool {
	if !(p.lit(`{"index":`) && p.int(&op.Index) && p.lit(`,"time":`) && p.int(&op.Time) &&
		p.lit(`,"process":`) && p.int(&op.Process) && p.lit(`,"type":"`) && p.opType(&op.Type) &&
		p.lit(`","f":"`)) {
		return false
	}
	switch f := p.str(); string(f) {
	case FSend, FPoll, FTxn, FCommit:
		op.F = d.name(f)
		if !(p.lit(`,"value":`) && d.fastMops(p, op)) {
			return false
		}
	case FAssign, FSubscribe:
		op.F = d.name(f)
		if !(p.lit(`,"value":`) && p.keys(&d.keyBuf, &op.Keys)) {
			return false
		}
	default:
		return false
	}
	if p.lit(`,"group":"`) {
		g := p.str()
		if g == nil {
			return false
		}
		op.Group = d.name(g)
	}
	if p.lit(`,"rebalance":{`) && !p.rebalance(op) {
		return false
	}
	if p.lit(`,"error":"`) {
		e := p.str()
		if e == nil {
			return false
		}
		op.Error = string(e)
	}
	return p.lit(`}`)
}

// fastMops reads [mop, ...] into op.Mops as mops does.
func (d *decoder) fastMops(p *fastScan, op *Op) bool {
	if !p.lit(`[`) {
		return false
	}
	start := len(d.mopBuf)
	for more := !p.lit(`]`); more; {
		if !d.fastMop(p, d.nextMop()) {
			return false
		}
		if more = p.lit(`,`); !more && !p.lit(`]`) {
			return false
		}
	}
	op.Mops = part(d.mopBuf, start)
	return true
}

func (d *decoder) fastMop(p *fastScan, m *Mop) bool {
	switch {
	case p.lit(`{"f":"send","key":`):
		m.F = MSend
		if !(p.int(&m.Key) && p.lit(`,"value":`) && p.int(&m.Value)) {
			return false
		}
		if p.lit(`,"offset":`) && !p.int(&m.Offset) {
			return false
		}
	case p.lit(`{"f":"poll"`):
		m.F = MPoll
		if p.lit(`,"records":{`) && !d.fastRecords(p, m) {
			return false
		}
	case p.lit(`{"f":"commit"`):
		m.F = MCommit
		if p.lit(`,"offsets":{`) && !d.fastOffsets(p, m) {
			return false
		}
	default:
		return false
	}
	return p.lit(`}`)
}

// fastRecords reads the rest of {"k": [[offset, value], ...], ...}.
func (d *decoder) fastRecords(p *fastScan, m *Mop) bool {
	m.Records = d.recordsMap()
	for more := !p.lit(`}`); more; {
		var k Key
		if !(p.lit(`"`) && p.int(&k) && p.lit(`":[`)) {
			return false
		}
		if _, twice := m.Records[k]; twice {
			return false
		}
		start := len(d.slab)
		for more := !p.lit(`]`); more; {
			var r Record
			if !(p.lit(`[`) && p.int(&r.Offset) && p.lit(`,`) && p.int(&r.Value) && p.lit(`]`)) {
				return false
			}
			d.slab = append(d.slab, r)
			if more = p.lit(`,`); !more && !p.lit(`]`) {
				return false
			}
		}
		m.Records[k] = part(d.slab, start)
		if more = p.lit(`,`); !more && !p.lit(`}`) {
			return false
		}
	}
	return true
}

// fastOffsets reads the rest of {"k": offset, ...}.
func (d *decoder) fastOffsets(p *fastScan, m *Mop) bool {
	m.Offsets = d.offsetsMap()
	for more := !p.lit(`}`); more; {
		var k Key
		var o int64
		if !(p.lit(`"`) && p.int(&k) && p.lit(`":`) && p.int(&o)) {
			return false
		}
		if _, twice := m.Offsets[k]; twice {
			return false
		}
		m.Offsets[k] = o
		if more = p.lit(`,`); !more && !p.lit(`}`) {
			return false
		}
	}
	return true
}

// rebalance reads the rest of {"revoked": [...], "assigned": [...]}, each
// field optional, as decoder.rebalance does.
func (p *fastScan) rebalance(op *Op) bool {
	r := &Rebalance{}
	revoked := p.lit(`"revoked":`)
	if revoked && !p.keys(nil, &r.Revoked) {
		return false
	}
	if (!revoked || p.lit(`,`)) && p.lit(`"assigned":`) && !p.keys(nil, &r.Assigned) {
		return false
	}
	op.Rebalance = r
	return p.lit(`}`)
}

// fastScan is the fast path's cursor over one line.
type fastScan struct {
	b []byte
	i int
}

// lit consumes s if the line goes on with it.
func (p *fastScan) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// int reads an integer as jscan.int does, refusing (rather than reporting)
// whatever jscan.int would report. Nineteen digits always fit in a uint64.
func (p *fastScan) int(dst *int64) bool {
	i, neg := p.i, false
	if i < len(p.b) && p.b[i] == '-' {
		neg = true
		i++
	}
	first := i
	var n uint64
	for ; i < len(p.b) && p.b[i] >= '0' && p.b[i] <= '9'; i++ {
		n = n*10 + uint64(p.b[i]-'0')
	}
	switch digits := i - first; {
	case digits == 0 || digits > 19 || digits > 1 && p.b[first] == '0':
		return false
	case neg && n <= math.MaxInt64+1:
		*dst = -int64(n)
	case !neg && n <= math.MaxInt64:
		*dst = int64(n)
	default:
		return false
	}
	p.i = i
	return true
}

// str reads the rest of a string whose opening quote was consumed, and its
// closing quote; nil when it has an escape or a control character (the
// general decoder then reads or rejects it) or is empty.
func (p *fastScan) str() []byte {
	for i := p.i; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			if i == p.i {
				return nil
			}
			s := p.b[p.i:i]
			p.i = i + 1
			return s
		case c == '\\' || c < 0x20:
			return nil
		}
	}
	return nil
}

func (p *fastScan) opType(dst *Type) bool {
	for _, t := range [...]Type{Invoke, OK, Fail, Info} {
		if p.lit(string(t)) {
			*dst = t
			return true
		}
	}
	return false
}

// keys reads [k, ...] as decoder.keyList does: appended to *buf (a fresh
// slice when buf is nil), capacity-limited; no key gives nil.
func (p *fastScan) keys(buf *[]Key, dst *[]Key) bool {
	if !p.lit(`[`) {
		return false
	}
	var local []Key
	if buf == nil {
		buf = &local
	}
	start := len(*buf)
	for more := !p.lit(`]`); more; {
		var k Key
		if !p.int(&k) {
			return false
		}
		*buf = append(*buf, k)
		if more = p.lit(`,`); !more && !p.lit(`]`) {
			return false
		}
	}
	*dst = part(*buf, start)
	return true
}
