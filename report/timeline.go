package report

import (
	"bytes"
	"encoding/json"
	"sort"
)

// timelineData is what the page's timeline script draws, in columns so that
// 100k ops cost a few bytes each and no DOM node: times are microseconds,
// starts are delta-encoded in start order.
type timelineData struct {
	Lanes   []int64    `json:"lanes"` // process of each lane; the nemesis first
	Fs      []string   `json:"fs"`    // op f names, indexed by F
	Lane    []int32    `json:"lane"`
	Start   []int64    `json:"s"` // delta from the previous bar's start
	Dur     []int64    `json:"d"`
	Type    string     `json:"t"` // one char per bar: o, f, i; u for never completed
	F       []int32    `json:"f"`
	Invoke  []int64    `json:"i"` // invoke index
	Op      []int64    `json:"c"` // completion index minus invoke index
	Windows [][3]any   `json:"w"` // start µs, end µs, label
	End     int64      `json:"end"`
	Focus   [][2]int64 `json:"focus"` // [op index, anomaly number] for evidence ops
}

func buildTimeline(c *collected, wins []window, focus map[int64]int) timelineData {
	bars := make([]bar, 0, len(c.Bars)+len(c.Nemesis))
	bars = append(bars, c.Nemesis...)
	bars = append(bars, c.Bars...)
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].Start < bars[j].Start })

	td := timelineData{End: c.End / 1000}
	lanes := map[int64]int32{}
	fs := map[string]int32{}
	if len(c.Nemesis) > 0 {
		lanes[-1] = 0
		td.Lanes = append(td.Lanes, -1)
	}
	procs := map[int64]bool{}
	for _, b := range c.Bars {
		procs[b.Process] = true
	}
	sorted := make([]int64, 0, len(procs))
	for p := range procs {
		sorted = append(sorted, p)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for _, p := range sorted {
		lanes[p] = int32(len(td.Lanes))
		td.Lanes = append(td.Lanes, p)
	}

	types := make([]byte, len(bars))
	var prev int64
	for i, b := range bars {
		fi, ok := fs[b.F]
		if !ok {
			fi = int32(len(td.Fs))
			fs[b.F] = fi
			td.Fs = append(td.Fs, b.F)
		}
		s, e := b.Start/1000, b.End/1000
		td.Lane = append(td.Lane, lanes[b.Process])
		td.Start = append(td.Start, s-prev)
		td.Dur = append(td.Dur, e-s)
		td.F = append(td.F, fi)
		td.Invoke = append(td.Invoke, b.Invoke)
		td.Op = append(td.Op, b.Op-b.Invoke)
		types[i] = b.Type
		if b.Unfinished {
			types[i] = 'u'
		}
		prev = s
	}
	td.Type = string(types)
	for _, w := range wins {
		td.Windows = append(td.Windows, [3]any{w.Start / 1000, w.End / 1000, w.Label})
	}
	for op, n := range focus {
		td.Focus = append(td.Focus, [2]int64{op, int64(n)})
	}
	sort.Slice(td.Focus, func(i, j int) bool { return td.Focus[i][0] < td.Focus[j][0] })
	return td
}

// opsJSON is the raw JSON of every op, as one array the page parses only
// when a person first clicks an op; nil when the history was too big. Lines
// are HTML-escaped so that an error text holding "</script>" stays inert.
func opsJSON(c *collected) []byte {
	if c.Lines == nil {
		return nil
	}
	var buf bytes.Buffer
	n := 2
	for _, l := range c.Lines {
		n += len(l) + 1
	}
	buf.Grow(n)
	buf.WriteByte('[')
	for i, l := range c.Lines {
		if i > 0 {
			buf.WriteByte(',')
		}
		json.HTMLEscape(&buf, l)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}
