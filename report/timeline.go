package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/kafkachaos/kafkachaos/histories"
)

// The timeline is what the page's script draws, in columns so that 100k ops
// cost a few bytes each and no DOM node: times are microseconds, starts are
// delta-encoded in start order. It is one JSON object:
//
//	lanes  process of each lane; the nemesis first
//	fs     op f names, indexed by f
//	lane, s (start delta), d (duration), f, i (invoke index),
//	c (completion index minus invoke index): one number per bar
//	t      one char per bar: o, f, i; u for never completed
//	w      fault windows: [start µs, end µs, label]
//	end    end of the run, µs
//	focus  [op index, anomaly number] for evidence ops
//
// It is written straight to the page, column by column, from the spans the
// history pass kept: no copy of the ops is built, whatever the history size.
type timeline struct {
	bars  []span // every span, by start, nemesis first on ties
	lanes []int64
	lane  map[int64]int
	fs    []string // f names, indexed by a span's F (collected.Fs)
}

func newTimeline(c *collected) *timeline {
	tl := &timeline{bars: c.Spans, lane: map[int64]int{}, fs: c.Fs}
	var procs []int64
	if slices.ContainsFunc(c.Spans, func(s span) bool { return s.Process < 0 }) {
		tl.lane[-1] = 0 // every nemesis process draws in lane 0
		tl.lanes = append(tl.lanes, -1)
	}
	for _, s := range c.Spans {
		if _, ok := tl.lane[s.Process]; !ok && s.Process >= 0 {
			tl.lane[s.Process] = -1
			procs = append(procs, s.Process)
		}
	}
	slices.Sort(procs)
	for _, p := range procs {
		tl.lane[p] = len(tl.lanes)
		tl.lanes = append(tl.lanes, p)
	}
	return tl
}

// jsonWriter writes JSON by hand onto a buffered writer; the first error
// sticks and is returned by err.
type jsonWriter struct {
	w   *bufio.Writer
	buf []byte
	e   error
}

func (j *jsonWriter) raw(s string) {
	if j.e == nil {
		_, j.e = j.w.WriteString(s)
	}
}

func (j *jsonWriter) byte(b byte) {
	if j.e == nil {
		j.e = j.w.WriteByte(b)
	}
}

func (j *jsonWriter) int(v int64) {
	if j.e == nil {
		j.buf = strconv.AppendInt(j.buf[:0], v, 10)
		_, j.e = j.w.Write(j.buf)
	}
}

// value marshals a small value as encoding/json does (HTML-safe).
func (j *jsonWriter) value(v any) {
	if j.e != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		j.e = err
		return
	}
	_, j.e = j.w.Write(b)
}

// column writes "name":[...] with one number per bar, or null when there
// are no bars (as encoding/json writes a nil slice).
func (j *jsonWriter) column(name string, bars []span, num func(i int, b span) int64) {
	j.raw(`,"` + name + `":`)
	if len(bars) == 0 {
		j.raw("null")
		return
	}
	j.raw("[")
	for i, b := range bars {
		if i > 0 {
			j.raw(",")
		}
		j.int(num(i, b))
	}
	j.raw("]")
}

func (tl *timeline) write(w *bufio.Writer, wins []window, end int64, focus map[int64]int) error {
	j := &jsonWriter{w: w}
	j.raw(`{"lanes":`)
	j.value(tl.lanes)
	j.raw(`,"fs":`)
	j.value(tl.fs)
	j.column("lane", tl.bars, func(_ int, b span) int64 { return int64(tl.lane[b.Process]) })
	j.column("s", tl.bars, func(i int, b span) int64 {
		if i == 0 {
			return b.Start / 1000
		}
		return b.Start/1000 - tl.bars[i-1].Start/1000
	})
	j.column("d", tl.bars, func(_ int, b span) int64 { return b.End/1000 - b.Start/1000 })
	j.raw(`,"t":"`)
	for _, b := range tl.bars {
		t := b.Type
		if b.Unfinished {
			t = 'u'
		}
		j.byte(t)
	}
	j.raw(`"`)
	j.column("f", tl.bars, func(_ int, b span) int64 { return int64(b.F) })
	j.column("i", tl.bars, func(_ int, b span) int64 { return b.Invoke })
	j.column("c", tl.bars, func(_ int, b span) int64 { return b.Op - b.Invoke })
	var ws [][3]any
	for _, w := range wins {
		ws = append(ws, [3]any{w.Start / 1000, w.End / 1000, w.Label})
	}
	j.raw(`,"w":`)
	j.value(ws)
	j.raw(`,"end":`)
	j.int(end / 1000)
	var fs [][2]int64
	for op, n := range focus {
		fs = append(fs, [2]int64{op, int64(n)})
	}
	slices.SortFunc(fs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	j.raw(`,"focus":`)
	j.value(fs)
	j.raw("}")
	return j.e
}

// writeOps streams the raw JSON of every op, as one array the page parses
// only when a person first clicks an op, reading the history a second time
// rather than keeping it. Lines are HTML-escaped so that an error text
// holding "</script>" stays inert.
func writeOps(w *bufio.Writer, dir string) error {
	src, err := histories.Open(filepath.Join(dir, HistoryFile), histories.FormatJSONL)
	if err != nil {
		return err
	}
	var line []byte
	var esc bytes.Buffer
	sep := byte('[')
	err = src.Scan(func(op *histories.Op) error {
		// The reader checked the op, so encoding it back cannot fail
		// and gives the line as written (the codec is canonical).
		line, _ = histories.AppendJSON(line[:0], op)
		esc.Reset()
		esc.WriteByte(sep)
		json.HTMLEscape(&esc, line)
		sep = ','
		_, err := w.Write(esc.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	return w.WriteByte(']')
}
