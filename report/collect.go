package report

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// span is one op on the timeline, from invoke to completion. It is kept for
// every op of the history, so it is small: the op's f is an index into
// collected.Fs, not a string.
type span struct {
	Process    int64
	Start, End int64 // ns since run start
	Invoke, Op int64 // indexes of the invoke and the completion
	F          uint32
	Type       byte // 'o' ok, 'f' fail, 'i' info (also never completed)
	Unfinished bool
}

// bar is a nemesis op with its f spelled out, for pairing fault windows.
type bar struct {
	Start, End int64
	F          string
	Invoke, Op int64
}

// obs is one (offset, value) seen by one op on a key whose orders are drawn.
type obs struct {
	Offset, Value, Op int64
	Write             bool
}

// valueTimes is when a value was acknowledged and first read.
type valueTimes struct{ acked, read int64 }

// collected is everything one streaming pass over the history keeps: a
// small span per op and what the findings need, never the ops themselves
// (their JSON is streamed again from the file when the page inlines it).
type collected struct {
	// Spans holds every op, client and nemesis (process < 0) alike, by
	// start, nemesis first on equal starts; it is built in chunks and copied
	// once into a slice of the exact size, since append's growth of a
	// slice of a million spans allocates five times its size.
	Spans  []span
	chunks [][]span
	Fs     []string
	fid    map[string]uint32
	// NemValues holds the value of every nemesis op, to label fault windows.
	NemValues map[int64]json.RawMessage
	End       int64 // time of the last op
	Ops       int64
	MaxIndex  int64
	// Dense is true when op indexes run 0, 1, 2, ... in file order, so the
	// page can find an op's JSON by position.
	Dense bool
	// Evidence holds the raw JSON of the ops anomalies name.
	Evidence map[int64][]byte
	// Warnings are what the reader tolerated, e.g. a cut-off last line.
	Warnings []string
	// Orders holds observations on the focus keys; OrdersCut names the keys
	// whose observations passed the cap.
	Orders    map[int64][]obs
	OrdersCut map[int64]bool
	Values    map[[2]int64]valueTimes
}

// maxObsPerKey bounds the memory the orders of one key may take.
const maxObsPerKey = 100_000

type pending struct {
	time, index int64
	f           uint32
}

// collect streams the history once, through the histories package's reader
// so that the page and the checker agree on what the history says.
func collect(dir string, focusKeys map[int64]bool, evidence map[int64]bool) (*collected, error) {
	src, err := histories.Open(filepath.Join(dir, HistoryFile), histories.FormatJSONL)
	if err != nil {
		return nil, err
	}
	c := &collected{
		fid:       map[string]uint32{},
		Dense:     true,
		Evidence:  map[int64][]byte{},
		Orders:    map[int64][]obs{},
		OrdersCut: map[int64]bool{},
		Values:    map[[2]int64]valueTimes{},
		NemValues: map[int64]json.RawMessage{},
	}
	open := map[int64]pending{}
	err = src.Scan(func(op *histories.Op) error {
		c.Dense = c.Dense && op.Index == c.Ops
		c.Ops++
		c.End = max(c.End, op.Time)
		c.MaxIndex = max(c.MaxIndex, op.Index)
		if evidence[op.Index] {
			// The reader checked the op, so encoding it back cannot fail
			// and gives the line as written (the codec is canonical).
			c.Evidence[op.Index], _ = histories.AppendJSON(nil, op)
		}
		if !op.IsClient() {
			c.NemValues[op.Index] = append(json.RawMessage(nil), op.Value...)
		}
		c.pair(open, op)
		c.observe(op, focusKeys)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, w := range src.Warnings() {
		c.Warnings = append(c.Warnings, w.String())
	}
	for p, inv := range open {
		c.add(span{Process: p, Start: inv.time, End: c.End, Type: 'i', F: inv.f,
			Invoke: inv.index, Op: inv.index, Unfinished: true})
	}
	c.Spans = slices.Concat(c.chunks...)
	c.chunks = nil
	// By start, the nemesis first, then invoke index: a total order, so
	// the page does not depend on the order ops were left open.
	slices.SortFunc(c.Spans, func(a, b span) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		if (a.Process < 0) != (b.Process < 0) {
			return cmp.Compare(b.Process>>63, a.Process>>63)
		}
		return cmp.Compare(a.Invoke, b.Invoke)
	})
	return c, nil
}

// spanChunk is how many spans one chunk holds (about 200 KB).
const spanChunk = 4096

// intern returns the index of an op f in c.Fs.
func (c *collected) intern(f string) uint32 {
	i, ok := c.fid[f]
	if !ok {
		i = uint32(len(c.Fs))
		c.fid[f] = i
		c.Fs = append(c.Fs, f)
	}
	return i
}

// pair turns invoke/completion pairs of a process into spans; a completion
// with no invoke (a lone nemesis info) is an instant.
func (c *collected) pair(open map[int64]pending, op *histories.Op) {
	f := c.intern(op.F)
	if op.Type == histories.Invoke {
		if prev, ok := open[op.Process]; ok {
			// A process invoking twice never completed the first op.
			c.add(span{Process: op.Process, Start: prev.time, End: op.Time, Type: 'i', F: prev.f,
				Invoke: prev.index, Op: prev.index, Unfinished: true})
		}
		open[op.Process] = pending{op.Time, op.Index, f}
		return
	}
	s := span{Process: op.Process, Start: op.Time, End: op.Time, Type: string(op.Type)[0], F: f,
		Invoke: op.Index, Op: op.Index}
	if inv, ok := open[op.Process]; ok {
		s.Start, s.Invoke = inv.time, inv.index
		delete(open, op.Process)
	}
	c.add(s)
}

func (c *collected) add(s span) {
	if n := len(c.chunks); n == 0 || len(c.chunks[n-1]) == spanChunk {
		c.chunks = append(c.chunks, make([]span, 0, spanChunk))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, s)
}

// nemesisBars are the nemesis spans with their f spelled out.
func (c *collected) nemesisBars() []bar {
	var out []bar
	for _, s := range c.Spans {
		if s.Process < 0 {
			out = append(out, bar{Start: s.Start, End: s.End, F: c.Fs[s.F], Invoke: s.Invoke, Op: s.Op})
		}
	}
	return out
}

// observe records acknowledgements and reads of values, and the orders of
// the focus keys.
func (c *collected) observe(op *histories.Op, focus map[int64]bool) {
	if op.Type != histories.OK {
		return
	}
	for _, m := range op.Mops {
		switch m.F {
		case histories.MSend:
			v := c.value(m.Key, m.Value)
			v.acked = op.Time
			c.Values[[2]int64{m.Key, m.Value}] = v
			if focus[m.Key] && m.Offset >= 0 {
				c.addObs(m.Key, obs{m.Offset, m.Value, op.Index, true})
			}
		case histories.MPoll:
			for k, recs := range m.Records {
				for _, rec := range recs {
					if v := c.value(k, rec.Value); v.read < 0 {
						v.read = op.Time
						c.Values[[2]int64{k, rec.Value}] = v
					}
					if focus[k] {
						c.addObs(k, obs{rec.Offset, rec.Value, op.Index, false})
					}
				}
			}
		}
	}
}

// value is what is known of a value so far; the caller stores it back.
func (c *collected) value(k, v int64) valueTimes {
	if t, ok := c.Values[[2]int64{k, v}]; ok {
		return t
	}
	return valueTimes{acked: -1, read: -1}
}

func (c *collected) addObs(k int64, o obs) {
	if len(c.Orders[k]) >= maxObsPerKey {
		c.OrdersCut[k] = true
		return
	}
	c.Orders[k] = append(c.Orders[k], o)
}

// inlineOps reports whether the page can carry every op's JSON: the history
// fits the budget and the page can find each op by position.
func inlineOps(dir string, c *collected, budget int64) bool {
	st, err := os.Stat(filepath.Join(dir, HistoryFile))
	return err == nil && st.Size() <= budget && c.Dense && c.Ops > 0
}
