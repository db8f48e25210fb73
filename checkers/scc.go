package checkers

// csr is a graph in compressed sparse row form: the out-edges of node v are
// edge indexes adj[off[v]:off[v+1]].
type csr struct {
	off []int32
	adj []int32
}

// newCSR builds the subgraph of the edges keep accepts, by counting sort.
func newCSR(n int, edges []edge, keep func(edge) bool) *csr {
	g := &csr{off: make([]int32, n+1)}
	for _, e := range edges {
		if keep(e) {
			g.off[e.from+1]++
		}
	}
	for v := 0; v < n; v++ {
		g.off[v+1] += g.off[v]
	}
	g.adj = make([]int32, g.off[n])
	fill := make([]int32, n)
	copy(fill, g.off[:n])
	for i, e := range edges {
		if keep(e) {
			g.adj[fill[e.from]] = int32(i)
			fill[e.from]++
		}
	}
	return g
}

// frame is one level of the iterative Tarjan walk: a node and its next edge.
type frame struct {
	node int32
	next int32
}

// scc numbers the strongly connected components with Tarjan's algorithm,
// iteratively so that ten million nodes cannot overflow the stack. It
// returns each node's component.
func (g *csr) scc(edges []edge) []int32 {
	n := len(g.off) - 1
	index := make([]int32, n) // 0 = unvisited, else visit order + 1
	low := make([]int32, n)
	onStack := make([]bool, n)
	comp := make([]int32, n)
	var stack []int32
	var calls []frame
	counter, ncomp := int32(0), int32(0)
	enter := func(v int32) {
		counter++
		index[v], low[v] = counter, counter
		stack = append(stack, v)
		onStack[v] = true
		calls = append(calls, frame{v, g.off[v]})
	}
	for s := int32(0); s < int32(n); s++ {
		if index[s] != 0 {
			continue
		}
		enter(s)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.node
			if f.next < g.off[v+1] {
				w := edges[g.adj[f.next]].to
				f.next++
				if index[w] == 0 {
					enter(w)
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
			if len(calls) > 0 {
				p := calls[len(calls)-1].node
				low[p] = min(low[p], low[v])
			}
		}
	}
	return comp
}

// cycles returns one short cycle (as edge indexes, in order) per strongly
// connected component with more than one node. With needWR, the cycle must
// contain a wr edge and components without one inside are skipped.
func (g *csr) cycles(edges []edge, needWR bool) [][]int32 {
	comp := g.scc(edges)
	n := len(comp)
	size := make([]int32, n) // components are numbered below n
	for _, c := range comp {
		size[c]++
	}
	b := newBFS(n)
	done := make([]bool, n)
	var out [][]int32
	for v := int32(0); v < int32(n); v++ {
		c := comp[v]
		if size[c] < 2 || done[c] {
			continue
		}
		if cyc := g.cycleFrom(v, comp, edges, needWR, b); cyc != nil {
			done[c] = true
			out = append(out, cyc)
		} else if !needWR {
			done[c] = true
		}
	}
	return out
}

// cycleFrom looks for a cycle in v's component: through v itself, or, with
// needWR, through one of v's wr edges that stays inside the component.
func (g *csr) cycleFrom(v int32, comp []int32, edges []edge, needWR bool, b *bfs) []int32 {
	if !needWR {
		return b.path(g, edges, comp, v, v)
	}
	for _, ei := range g.adj[g.off[v]:g.off[v+1]] {
		e := edges[ei]
		if e.kind == kindWR && comp[e.to] == comp[v] {
			return append([]int32{ei}, b.path(g, edges, comp, e.to, v)...)
		}
	}
	return nil
}

// bfs finds shortest paths inside one component, reusing its arrays: a node
// is visited in the current search when its stamp equals the search number.
type bfs struct {
	stamp  []int32
	parent []int32 // edge index that reached the node
	round  int32
	queue  []int32
}

func newBFS(n int) *bfs { return &bfs{stamp: make([]int32, n), parent: make([]int32, n)} }

// path returns the edges of a shortest path from src to dst within src's
// component; when src == dst, a shortest cycle through src.
func (b *bfs) path(g *csr, edges []edge, comp []int32, src, dst int32) []int32 {
	b.round++
	b.queue = append(b.queue[:0], src)
	b.stamp[src] = b.round
	for h := 0; h < len(b.queue); h++ {
		u := b.queue[h]
		for _, ei := range g.adj[g.off[u]:g.off[u+1]] {
			w := edges[ei].to
			if comp[w] != comp[src] {
				continue
			}
			if w == dst {
				return b.unwind(edges, src, u, ei)
			}
			if b.stamp[w] != b.round {
				b.stamp[w], b.parent[w] = b.round, ei
				b.queue = append(b.queue, w)
			}
		}
	}
	return nil
}

// unwind rebuilds the path src .. u, then the final edge last.
func (b *bfs) unwind(edges []edge, src, u, last int32) []int32 {
	p := []int32{last}
	for u != src {
		ei := b.parent[u]
		p = append(p, ei)
		u = edges[ei].from
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}
