package checkers

import (
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Edge kinds.
const (
	kindWW uint8 = iota // the source's value directly precedes the target's in a key's log
	kindWR              // the target read a value the source sent
)

func kindName(k uint8) string {
	if k == kindWW {
		return "ww"
	}
	return "wr"
}

type edge struct {
	from, to int32
	key      int64
	kind     uint8
}

// depGraph is the transaction dependency graph over ok ops that send (every
// txn and send op is a transaction; polls are one-op transactions too, but
// an op that only reads has no outgoing edge and so lies on no cycle, and is
// left out). Nodes are numbered in history order by the collector.
type depGraph struct {
	nodeOps []int64
	edges   []edge
	wwDeps  bool
	scratch []edge
}

func newDepGraph(col *collector, opts Options) *depGraph {
	g := &depGraph{nodeOps: col.nodeOps, wwDeps: opts.WWDeps}
	if opts.WWDeps {
		for _, ks := range col.keyList {
			g.addWW(ks)
		}
	}
	return g
}

// addWW links the writers of each pair of adjacent values in ks's log.
func (g *depGraph) addWW(ks *keyState) {
	prev := int32(-1)
	for i := range ks.log.byIndex {
		_, s := ks.log.valueAt(int32(i))
		n := ks.slots.at(s).node
		if prev >= 0 && n >= 0 && n != prev {
			g.edges = append(g.edges, edge{prev, n, ks.key, kindWW})
		}
		prev = n
	}
}

// visit adds wr edges into an ok op that sends, one per writer it read.
func (g *depGraph) visit(v *opView) {
	if v.node < 0 || v.op.Type != histories.OK || len(v.reads) == 0 {
		return
	}
	g.scratch = g.scratch[:0]
	for _, r := range v.reads {
		w := r.ks.slots.at(r.slot).node
		if w >= 0 && w != v.node {
			g.scratch = append(g.scratch, edge{w, v.node, r.ks.key, kindWR})
		}
	}
	slices.SortFunc(g.scratch, func(a, b edge) int { return int(a.from - b.from) })
	for i, e := range g.scratch {
		if i == 0 || e.from != g.scratch[i-1].from {
			g.edges = append(g.edges, e)
		}
	}
}

// finish searches for G0 (a cycle of ww edges only, when WWDeps is on) and
// G1c (a cycle with at least one wr edge), one case per strongly connected
// component.
func (g *depGraph) finish(sink *caseSink) {
	if len(g.edges) == 0 {
		return
	}
	if g.wwDeps {
		ww := newCSR(len(g.nodeOps), g.edges, func(e edge) bool { return e.kind == kindWW })
		for _, cyc := range ww.cycles(g.edges, false) {
			sink.add(G0, g.cycleCase(cyc, "write-write order alone"))
		}
	}
	all := newCSR(len(g.nodeOps), g.edges, func(edge) bool { return true })
	for _, cyc := range all.cycles(g.edges, true) {
		sink.add(G1c, g.cycleCase(cyc, "write-read (and write-write) dependencies"))
	}
}

func (g *depGraph) cycleCase(cyc []int32, what string) Case {
	c := Case{Ops: make([]int64, 0, len(cyc)), Cycle: make([]Edge, 0, len(cyc))}
	var text strings.Builder
	for i, ei := range cyc {
		e := g.edges[ei]
		from, to := g.nodeOps[e.from], g.nodeOps[e.to]
		c.Ops = append(c.Ops, from)
		c.Cycle = append(c.Cycle, Edge{From: from, To: to, Kind: kindName(e.kind), Key: e.key})
		switch {
		case i == 0:
			text.WriteString("op " + itoa(from))
			fallthrough
		case i < maxCycleText:
			text.WriteString(" -" + kindName(e.kind) + " key " + itoa(e.key) + "-> op " + itoa(to))
		case i == maxCycleText:
			text.WriteString(" ... (" + itoa(int64(len(cyc))) + " edges)")
		}
	}
	c.Explanation = "transactions form a cycle through " + what + ", so no serial order explains them: " + text.String()
	return c
}

// maxCycleText bounds how many edges a cycle's explanation spells out; Cycle
// lists them all.
const maxCycleText = 8
