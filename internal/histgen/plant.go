package histgen

import "github.com/kafkachaos/kafkachaos/histories"

type keyValue struct{ k, v int64 }

// planter rewrites ops as they stream out of the simulator.
type planter struct {
	lostAt, dupAt []int64 // op indexes from which the next plant is due
	lost          map[keyValue]bool
	renamed       map[keyValue]int64 // second value -> the first, for duplicates
	seen          map[keyValue]bool  // renamed values a read saw
	planted       Planted
	op            histories.Op // the rewritten op handed on
	mops          []histories.Mop
}

func newPlanter(cfg Config) *planter {
	return &planter{
		lostAt:  spread(cfg.Ops, cfg.LostWrites, 0),
		dupAt:   spread(cfg.Ops, cfg.Duplicates, 1),
		lost:    map[keyValue]bool{},
		renamed: map[keyValue]int64{},
		seen:    map[keyValue]bool{},
	}
}

// spread places n plants evenly over the first 90% of a history of ops,
// leaving the end for reads past them; shift offsets one schedule from
// another so that no op takes both.
func spread(ops, n int, shift int64) []int64 {
	at := make([]int64, n)
	for i := range at {
		at[i] = int64(ops)*9/10*int64(i+1)/int64(n+1) + shift
	}
	return at
}

// rewrite returns op with the plants applied; op itself belongs to the
// simulator and is not changed.
func (p *planter) rewrite(op *histories.Op) *histories.Op {
	p.planted.Ops++
	if op.Type == histories.Invoke || len(op.Mops) == 0 {
		return op
	}
	if op.Type == histories.OK && op.F == histories.FSend {
		return p.plantSend(op)
	}
	return p.filterReads(op)
}

func (p *planter) plantSend(op *histories.Op) *histories.Op {
	if len(p.dupAt) > 0 && op.Index >= p.dupAt[0] {
		if i := adjacentPair(op.Mops); i >= 0 {
			p.dupAt = p.dupAt[1:]
			first, second := op.Mops[i], op.Mops[i+1]
			p.renamed[keyValue{second.Key, second.Value}] = first.Value
			p.op = *op
			p.mops = append(append(p.mops[:0], op.Mops[:i+1]...), op.Mops[i+2:]...)
			p.op.Mops = p.mops
			return &p.op
		}
	}
	if len(p.lostAt) > 0 && op.Index >= p.lostAt[0] {
		p.lostAt = p.lostAt[1:]
		m := op.Mops[0]
		p.lost[keyValue{m.Key, m.Value}] = true
		p.planted.LostWrites++
	}
	return op
}

// adjacentPair finds mops i, i+1 that sent to one key at adjacent offsets,
// the op's last two sends to that key: a send after them would land past
// the duplicate, which is another anomaly (int-send-skip).
func adjacentPair(ms []histories.Mop) int {
	for i := len(ms) - 2; i >= 0; i-- {
		a, b := ms[i], ms[i+1]
		if a.F == histories.MSend && b.F == histories.MSend && a.Key == b.Key && a.Offset >= 0 && b.Offset == a.Offset+1 {
			if lastTo(ms, b.Key) == i+1 {
				return i
			}
		}
	}
	return -1
}

func lastTo(ms []histories.Mop, k int64) int {
	last := -1
	for i, m := range ms {
		if m.F == histories.MSend && m.Key == k {
			last = i
		}
	}
	return last
}

// filterReads drops reads of lost values and reads a duplicate's second
// value as its first, copying only what changes.
func (p *planter) filterReads(op *histories.Op) *histories.Op {
	var out *histories.Op
	for i := range op.Mops {
		for k, recs := range op.Mops[i].Records {
			if !p.touches(k, recs) {
				continue
			}
			if out == nil {
				out = p.copyMops(op)
			}
			out.Mops[i].Records[k] = p.fix(k, recs)
		}
	}
	if out == nil {
		return op
	}
	return out
}

func (p *planter) touches(k int64, recs []histories.Record) bool {
	for _, r := range recs {
		kv := keyValue{k, r.Value}
		if _, ok := p.renamed[kv]; ok || p.lost[kv] {
			return true
		}
	}
	return false
}

func (p *planter) fix(k int64, recs []histories.Record) []histories.Record {
	out := make([]histories.Record, 0, len(recs))
	for _, r := range recs {
		kv := keyValue{k, r.Value}
		if p.lost[kv] {
			continue
		}
		if v, ok := p.renamed[kv]; ok {
			if !p.seen[kv] {
				p.seen[kv] = true
				p.planted.Duplicates++
			}
			r.Value = v
		}
		out = append(out, r)
	}
	return out
}

// copyMops copies op with fresh mops and records maps, to change them.
func (p *planter) copyMops(op *histories.Op) *histories.Op {
	p.op = *op
	p.op.Mops = append(p.mops[:0], op.Mops...)
	p.mops = p.op.Mops
	for i, m := range p.op.Mops {
		if m.Records == nil {
			continue
		}
		recs := make(map[histories.Key][]histories.Record, len(m.Records))
		for k, rs := range m.Records {
			recs[k] = rs
		}
		p.op.Mops[i].Records = recs
	}
	return &p.op
}
