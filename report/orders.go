package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// Caps that keep an orders diagram readable.
const (
	maxOrderKeys = 12 // keys drawn
	maxColumns   = 48 // offsets per key
	maxRows      = 18 // ops per key
	around       = 3  // offsets shown either side of a finding
)

// keyFindings is what the anomalies say about one key.
type keyFindings struct {
	Offsets  map[int64]bool // offsets named by cases
	Lost     map[int64]bool // acknowledged values never (properly) read
	Evidence map[int64]bool // ops named by cases
}

// focusKeys picks the keys to draw: those named by anomaly cases, in the
// order of their first case, capped.
func focusKeys(res runResults, order []checkers.Anomaly) ([]int64, map[int64]*keyFindings) {
	var keys []int64
	fk := map[int64]*keyFindings{}
	for _, a := range order {
		for _, c := range res.Anomalies[a] {
			if c.Key == nil {
				continue
			}
			kf := fk[*c.Key]
			if kf == nil {
				if len(keys) >= maxOrderKeys {
					continue
				}
				kf = &keyFindings{map[int64]bool{}, map[int64]bool{}, map[int64]bool{}}
				fk[*c.Key] = kf
				keys = append(keys, *c.Key)
			}
			for _, o := range c.Offsets {
				kf.Offsets[o] = true
			}
			for _, o := range c.Ops {
				kf.Evidence[o] = true
			}
			if c.Value != nil && (a == checkers.LostWrite || a == checkers.Unseen || a == checkers.LostDelivery || a == checkers.LostAfterRead) {
				kf.Lost[*c.Value] = true
			}
		}
	}
	return keys, fk
}

// orderView is one key's diagram.
type orderView struct {
	Key   int64
	SVG   template.HTML
	Notes []string
}

// keyOrder is the version order of one key as the ops saw it.
type keyOrder struct {
	values   map[int64]map[int64]bool // offset -> values
	offsets  map[int64]map[int64]bool // value -> offsets
	byOp     map[int64]map[int64]int64
	writes   map[int64]bool // ops that wrote
	lostAt   map[int64]int64
	opsOrder []int64
}

func newKeyOrder(obs []obs, kf *keyFindings) *keyOrder {
	ko := &keyOrder{map[int64]map[int64]bool{}, map[int64]map[int64]bool{}, map[int64]map[int64]int64{},
		map[int64]bool{}, map[int64]int64{}, nil}
	for _, o := range obs {
		set(ko.values, o.Offset, o.Value)
		set(ko.offsets, o.Value, o.Offset)
		if ko.byOp[o.Op] == nil {
			ko.byOp[o.Op] = map[int64]int64{}
			ko.opsOrder = append(ko.opsOrder, o.Op)
		}
		ko.byOp[o.Op][o.Offset] = o.Value
		if o.Write {
			ko.writes[o.Op] = true
			if kf.Lost[o.Value] {
				ko.lostAt[o.Value] = o.Offset
			}
		}
	}
	sort.Slice(ko.opsOrder, func(i, j int) bool { return ko.opsOrder[i] < ko.opsOrder[j] })
	return ko
}

func set(m map[int64]map[int64]bool, a, b int64) {
	if m[a] == nil {
		m[a] = map[int64]bool{}
	}
	m[a][b] = true
}

// columns picks the offsets around every finding, in order, capped.
func (ko *keyOrder) columns(kf *keyFindings) []int64 {
	focus := map[int64]bool{}
	for o := range kf.Offsets {
		focus[o] = true
	}
	for o, vs := range ko.values {
		if len(vs) > 1 {
			focus[o] = true
		}
	}
	for v, os := range ko.offsets {
		if len(os) > 1 || kf.Lost[v] {
			for o := range os {
				focus[o] = true
			}
		}
	}
	if len(focus) == 0 {
		for o := range ko.values {
			focus[o] = true
		}
	}
	fs := make([]int64, 0, len(focus))
	for o := range focus {
		fs = append(fs, o)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i] < fs[j] })
	seen := map[int64]bool{}
	var cols []int64
	for _, f := range fs {
		for o := f - around; o <= f+around && len(cols) < maxColumns; o++ {
			if !seen[o] && (ko.values[o] != nil || focus[o]) {
				seen[o] = true
				cols = append(cols, o)
			}
		}
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i] < cols[j] })
	return cols
}

// rows picks the ops to draw: evidence first, then writers, then readers.
func (ko *keyOrder) rows(cols []int64, kf *keyFindings) []int64 {
	var ev, wr, rd []int64
	for _, op := range ko.opsOrder {
		touches := false
		for _, o := range cols {
			if _, ok := ko.byOp[op][o]; ok {
				touches = true
				break
			}
		}
		switch {
		case !touches:
		case kf.Evidence[op]:
			ev = append(ev, op)
		case ko.writes[op]:
			wr = append(wr, op)
		default:
			rd = append(rd, op)
		}
	}
	all := append(append(ev, wr...), rd...)
	all = all[:min(len(all), maxRows)]
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

// Cell geometry of the orders diagram.
const (
	cellW, cellH, labelW, gapW = 46, 20, 120, 14
)

func buildOrder(k int64, obs []obs, cut bool, kf *keyFindings) orderView {
	ko := newKeyOrder(obs, kf)
	cols := ko.columns(kf)
	rows := ko.rows(cols, kf)
	v := orderView{Key: k}
	if cut {
		v.Notes = append(v.Notes, fmt.Sprintf("more than %d observations of this key: only the first are drawn", maxObsPerKey))
	}
	xs := map[int64]float64{}
	x := float64(labelW)
	for i, o := range cols {
		if i > 0 && o != cols[i-1]+1 {
			x += gapW
		}
		xs[o] = x
		x += cellW
	}
	lost := sortedInts(kf.Lost)
	nRows := max(1, ko.maxValuesAt(cols)) + len(rows)
	if len(lost) > 0 {
		nRows++
	}
	h := float64(cellH*(nRows+1) + 8)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="orders" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`, x+4, h, x+4, h)
	y := 0.0
	fmt.Fprintf(&b, `<text x="4" y="%.0f" class="olabel">offset</text>`, y+14)
	for i, o := range cols {
		cls := "ohead"
		if len(ko.values[o]) > 1 {
			cls += " incons"
		}
		if i > 0 && o != cols[i-1]+1 {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" class="ogap">…</text>`, xs[o]-gapW+2, y+14)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" class="%s" text-anchor="middle">%d</text>`, xs[o]+cellW/2, y+14, cls, o)
	}
	y += cellH
	// The log rows: every value seen at each offset; two rows when two
	// values share an offset.
	for r := 0; r < max(1, ko.maxValuesAt(cols)); r++ {
		lbl := "log"
		if r > 0 {
			lbl = ""
		}
		fmt.Fprintf(&b, `<text x="4" y="%.0f" class="olabel strong">%s</text>`, y+14, lbl)
		for _, o := range cols {
			vals := sortedInts(ko.values[o])
			if r < len(vals) {
				b.WriteString(ko.cell(xs[o], y, vals[r], len(vals) > 1, kf))
			}
		}
		y += cellH
	}
	for _, op := range rows {
		kind := "read"
		if ko.writes[op] {
			kind = "write"
		}
		fmt.Fprintf(&b, `<a href="#op-%d"><text x="4" y="%.0f" class="olabel link">op %d %s</text></a>`, op, y+14, op, kind)
		for _, o := range cols {
			if val, ok := ko.byOp[op][o]; ok {
				b.WriteString(ko.cell(xs[o], y, val, len(ko.values[o]) > 1, kf))
			}
		}
		y += cellH
	}
	if len(lost) > 0 {
		fmt.Fprintf(&b, `<text x="4" y="%.0f" class="olabel bad">lost / unseen</text>`, y+14)
		var elsewhere []string
		for _, val := range lost {
			o, ok := ko.lostAt[val]
			if cx, shown := xs[o]; ok && shown {
				fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%d" height="%d" class="lost"/><text x="%.0f" y="%.0f" class="cval" text-anchor="middle">%d</text>`,
					cx+1, y+1, cellW-2, cellH-2, cx+cellW/2, y+14, val)
			} else {
				elsewhere = append(elsewhere, fmt.Sprint(val))
			}
		}
		if len(elsewhere) > 0 {
			v.Notes = append(v.Notes, "lost or unseen values with no known offset: "+strings.Join(elsewhere, ", "))
		}
	}
	b.WriteString(`</svg>`)
	v.SVG = template.HTML(b.String()) // numbers and fixed class names only
	return v
}

func (ko *keyOrder) maxValuesAt(cols []int64) int {
	n := 0
	for _, o := range cols {
		n = max(n, len(ko.values[o]))
	}
	return n
}

// cell draws one value, coloured by value so equal values match across
// rows, outlined when the value is duplicated, the offset inconsistent, or
// the value lost.
func (ko *keyOrder) cell(x, y float64, val int64, inconsistent bool, kf *keyFindings) string {
	cls := "cell"
	title := fmt.Sprintf("value %d", val)
	switch {
	case inconsistent:
		cls += " incons"
		title += ": one of several values at this offset"
	case len(ko.offsets[val]) > 1:
		cls += " dup"
		title += fmt.Sprintf(": at %d offsets", len(ko.offsets[val]))
	case kf.Lost[val]:
		cls += " lostv"
		title += ": lost or unseen"
	}
	hue := math.Mod(float64(val)*137.508, 360)
	return fmt.Sprintf(`<g><title>%s</title><rect x="%.0f" y="%.0f" width="%d" height="%d" class="%s" style="fill:hsl(%.0f,70%%,88%%)"/><text x="%.0f" y="%.0f" class="cval" text-anchor="middle">%d</text></g>`,
		html.EscapeString(title), x+1, y+1, cellW-2, cellH-2, cls, hue, x+cellW/2, y+14, val)
}

func sortedInts(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
