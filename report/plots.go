package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"sort"
)

// Downsampling bounds: plots stay a few hundred KB whatever the history size.
const (
	maxPoints = 4000 // raw latency points
	nBins     = 100  // time buckets for quantiles and rates
)

// latencyPlot draws each client op's latency at its completion time (a
// sample of them for big histories; every fail and info, up to the cap)
// with the p50/p95/p99/max per time bucket. Nemesis spans are skipped.
func latencyPlot(bars []span, names []string, wins []window, end int64) template.HTML {
	p := newPlot("latency", end, wins)
	lo, hi := math.Inf(1), 0.0
	bins := latencyBins(bars, end)
	nClient := 0
	for _, b := range bars {
		if b.Process < 0 {
			continue
		}
		nClient++
		if b.Unfinished {
			continue
		}
		ms := float64(b.End-b.Start) / 1e6
		lo, hi = math.Min(lo, math.Max(ms, 1e-3)), math.Max(hi, ms)
		i := bin(b.End, end)
		bins[i] = append(bins[i], ms)
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	p.logY(lo, hi, "latency (ms)")
	stride := max(1, nClient/maxPoints)
	fs := map[string]bool{}
	i := -1 // index among client ops
	for _, b := range bars {
		if b.Process < 0 {
			continue
		}
		i++
		odd := b.Type != 'o'
		if b.Unfinished || (!odd && i%stride != 0) || (odd && i%max(1, stride/4) != 0) {
			continue
		}
		fs[names[b.F]] = true
		x, y := p.x(float64(b.End)/1e9), p.y(float64(b.End-b.Start)/1e6)
		if odd {
			fmt.Fprintf(&p.b, `<path d="M%.1f %.1fl4 4m0 -4l-4 4" stroke="%s" class="pt"/>`, x-2, y-2, typeColor(b.Type))
		} else {
			fmt.Fprintf(&p.b, `<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s" class="pt"/>`, x, y, fColor(names[b.F]))
		}
	}
	for _, f := range sortedKeys(fs) {
		p.legend = append(p.legend, legendItem{f + " (point)", fColor(f), ""})
	}
	for _, q := range []struct {
		name  string
		q     float64
		color string
	}{{"p50", .5, "#0f172a"}, {"p95", .95, "#b45309"}, {"p99", .99, "#b91c1c"}, {"max", 1, "#94a3b8"}} {
		var xs, ys []float64
		for i, l := range bins {
			if len(l) == 0 {
				continue
			}
			slices.Sort(l)
			xs = append(xs, binMid(i, end))
			ys = append(ys, l[min(len(l)-1, int(q.q*float64(len(l))))])
		}
		p.line(xs, ys, q.color, "", q.name)
	}
	return p.svg()
}

// latencyBins makes each time bucket's slice of latencies at its final
// size: appending to a hundred slices that end with a million values in all
// would allocate several times that.
func latencyBins(bars []span, end int64) [][]float64 {
	n := make([]int, nBins)
	for _, b := range bars {
		if b.Process >= 0 && !b.Unfinished {
			n[bin(b.End, end)]++
		}
	}
	bins := make([][]float64, nBins)
	for i := range bins {
		bins[i] = make([]float64, 0, n[i])
	}
	return bins
}

// ratePlot draws client completions per second by op f, and fail/info
// together.
func ratePlot(bars []span, names []string, wins []window, end int64) template.HTML {
	p := newPlot("throughput", end, wins)
	counts := map[string][]float64{}
	add := func(name string, t int64) {
		if counts[name] == nil {
			counts[name] = make([]float64, nBins)
		}
		counts[name][bin(t, end)]++
	}
	for _, b := range bars {
		if b.Unfinished || b.Process < 0 {
			continue
		}
		if b.Type == 'o' {
			add(names[b.F], b.End)
		} else {
			add("fail/info", b.End)
		}
	}
	width := math.Max(float64(end)/1e9/nBins, 1e-9)
	top := 0.0
	for _, c := range counts {
		for i := range c {
			c[i] /= width
			top = math.Max(top, c[i])
		}
	}
	p.linearY(top, "ops/s")
	for _, name := range sortedKeys(counts) {
		color, dash, label := fColor(name), "", name+" ok"
		if name == "fail/info" {
			color, dash, label = "#dc2626", "4 3", name
		}
		xs := make([]float64, nBins)
		for i := range xs {
			xs[i] = binMid(i, end)
		}
		p.line(xs, counts[name], color, dash, label)
	}
	return p.svg()
}

// unseenPlot draws how many acknowledged values had not yet been read, over
// time: a line that stays up after the final reads is loss.
func unseenPlot(values map[[2]int64]valueTimes, wins []window, end int64) (template.HTML, int64) {
	p := newPlot("unseen", end, wins)
	delta := make([]float64, nBins+1)
	var never int64
	for _, v := range values {
		if v.acked < 0 {
			continue
		}
		delta[bin(v.acked, end)]++
		if v.read < 0 {
			never++
			continue
		}
		delta[bin(max(v.read, v.acked), end)]--
	}
	xs, ys := make([]float64, nBins), make([]float64, nBins)
	cur, top := 0.0, 0.0
	for i := range nBins {
		cur += delta[i]
		xs[i], ys[i] = float64(i+1)*float64(end)/1e9/nBins, cur
		top = math.Max(top, cur)
	}
	p.linearY(top, "values")
	p.line(xs, ys, "#dc2626", "", "unseen")
	if never > 0 {
		fmt.Fprintf(&p.b, `<text x="%d" y="%d" class="tick warn">%s never read</text>`, padL+8, padT+14, html.EscapeString(fmt.Sprint(never)))
	}
	return p.svg(), never
}

func bin(t, end int64) int {
	if end <= 0 {
		return 0
	}
	return min(nBins-1, max(0, int(t*nBins/end)))
}

func binMid(i int, end int64) float64 { return (float64(i) + .5) * float64(end) / 1e9 / nBins }

func typeColor(t byte) string {
	switch t {
	case 'f':
		return "#dc2626"
	case 'i', 'u':
		return "#d97706"
	}
	return "#16a34a"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
