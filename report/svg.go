package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// Plot geometry: one width for every plot so their time axes line up.
const (
	plotW, plotH           = 960, 230
	padL, padR, padT, padB = 58, 130, 14, 30
	innerW, innerH         = plotW - padL - padR, plotH - padT - padB
)

// fColors colours op fs the same in every plot and on the timeline.
var fColors = map[string]string{
	"send": "#2563eb", "poll": "#059669", "txn": "#7c3aed", "commit": "#d97706",
	"assign": "#64748b", "subscribe": "#64748b", "crash": "#dc2626",
}

func fColor(f string) string {
	if c, ok := fColors[f]; ok {
		return c
	}
	return "#0891b2"
}

// plot draws one SVG chart: a time x axis in seconds, a y axis, the fault
// windows shaded behind the data.
type plot struct {
	b      strings.Builder
	end    float64 // x axis end, seconds
	y      func(float64) float64
	legend []legendItem
}

type legendItem struct{ label, color, dash string }

func newPlot(title string, endNs int64, wins []window) *plot {
	p := &plot{end: math.Max(float64(endNs)/1e9, 1e-3)}
	fmt.Fprintf(&p.b, `<svg class="plot" viewBox="0 0 %d %d" role="img" aria-label="%s">`, plotW, plotH, html.EscapeString(title))
	fmt.Fprintf(&p.b, `<rect x="%d" y="%d" width="%d" height="%d" class="pbg"/>`, padL, padT, innerW, innerH)
	for _, w := range wins {
		x0, x1 := p.x(float64(w.Start)/1e9), p.x(float64(w.End)/1e9)
		fmt.Fprintf(&p.b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" class="fault"><title>%s</title></rect>`,
			x0, padT, math.Max(x1-x0, 1), innerH, html.EscapeString(w.Label))
	}
	for _, t := range niceTicks(p.end, 8) {
		x := p.x(t)
		fmt.Fprintf(&p.b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/><text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`,
			x, x, padT, padT+innerH, x, padT+innerH+14, fmtNum(t))
	}
	fmt.Fprintf(&p.b, `<text x="%d" y="%d" class="axis" text-anchor="end">time (s)</text>`, padL+innerW, plotH-2)
	return p
}

func (p *plot) x(sec float64) float64 { return padL + sec/p.end*innerW }

// linearY sets a linear y axis from 0 to max.
func (p *plot) linearY(max float64, unit string) {
	max = math.Max(max, 1)
	ticks := niceTicks(max, 5)
	if top := ticks[len(ticks)-1]; top > max {
		max = top
	}
	p.y = func(v float64) float64 { return padT + innerH - v/max*innerH }
	for _, t := range ticks {
		p.yTick(t, fmtNum(t))
	}
	p.yLabel(unit)
}

// logY sets a log y axis covering [lo, hi], rounded out to decades.
func (p *plot) logY(lo, hi float64, unit string) {
	l0 := math.Floor(math.Log10(math.Max(lo, 1e-3)))
	l1 := math.Max(math.Ceil(math.Log10(math.Max(hi, 1e-3))), l0+1)
	p.y = func(v float64) float64 {
		lv := math.Log10(math.Max(v, math.Pow(10, l0)))
		return padT + innerH - (lv-l0)/(l1-l0)*innerH
	}
	for d := l0; d <= l1; d++ {
		p.yTick(math.Pow(10, d), fmtNum(math.Pow(10, d)))
	}
	p.yLabel(unit)
}

func (p *plot) yTick(v float64, s string) {
	y := p.y(v)
	fmt.Fprintf(&p.b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`,
		padL, padL+innerW, y, y, padL-5, y+4, s)
}

func (p *plot) yLabel(unit string) {
	fmt.Fprintf(&p.b, `<text x="12" y="%d" class="axis" transform="rotate(-90 12 %d)" text-anchor="middle">%s</text>`,
		padT+innerH/2, padT+innerH/2, html.EscapeString(unit))
}

// line draws a polyline through (seconds, value) points.
func (p *plot) line(xs, ys []float64, color, dash, label string) {
	if len(xs) == 0 {
		return
	}
	var pts strings.Builder
	for i := range xs {
		fmt.Fprintf(&pts, "%.1f,%.1f ", p.x(xs[i]), p.y(ys[i]))
	}
	fmt.Fprintf(&p.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6" stroke-dasharray="%s"/>`, pts.String(), color, dash)
	p.legend = append(p.legend, legendItem{label, color, dash})
}

// svg closes the plot with its legend.
func (p *plot) svg() template.HTML {
	for i, l := range p.legend {
		y := padT + 8 + i*16
		fmt.Fprintf(&p.b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2.5" stroke-dasharray="%s"/><text x="%d" y="%d" class="tick">%s</text>`,
			padL+innerW+10, padL+innerW+28, y, y, l.color, l.dash, padL+innerW+33, y+4, html.EscapeString(l.label))
	}
	p.b.WriteString(`</svg>`)
	return template.HTML(p.b.String()) // built here from numbers and escaped labels
}

// niceTicks returns about n round tick values from 0 to at least max.
func niceTicks(max float64, n int) []float64 {
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for t := 0.0; t <= max+step*1e-9; t += step {
		out = append(out, t)
	}
	return out
}

// fmtNum prints a tick value compactly (1.5, 20, 3k, 0.001).
func fmtNum(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", math.Round(v/1e5)/10)
	case v >= 1e4:
		return fmt.Sprintf("%gk", math.Round(v/100)/10)
	}
	return fmt.Sprintf("%g", math.Round(v*1000)/1000)
}
