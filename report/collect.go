package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"

	"github.com/kafkachaos/kafkachaos/histories"
)

// bar is one operation on the timeline: from invoke to completion.
type bar struct {
	Process    int64
	Start, End int64 // ns since run start
	Type       byte  // 'o' ok, 'f' fail, 'i' info (also never completed)
	F          string
	Invoke, Op int64 // indexes of the invoke and the completion
	Unfinished bool
}

// obs is one (offset, value) seen by one op on a key whose orders are drawn.
type obs struct {
	Offset, Value, Op int64
	Write             bool
}

// valueTimes is when a value was acknowledged and first read.
type valueTimes struct{ acked, read int64 }

// collected is everything one streaming pass over the history keeps.
type collected struct {
	Bars    []bar
	Nemesis []bar // nemesis ops, paired like client ops
	// NemValues holds the value of every nemesis op, to label fault windows.
	NemValues map[int64]json.RawMessage
	End       int64 // time of the last op
	Ops       int64
	MaxIndex  int64
	// Lines holds the raw JSON of every op when the history fits the budget;
	// nil otherwise. Evidence always holds the raw JSON of the ops anomalies
	// name.
	Lines    [][]byte
	Evidence map[int64][]byte
	linesOff bool
	// Warnings are what the reader tolerated, e.g. a cut-off last line.
	Warnings []string
	// Orders holds observations on the focus keys; OrdersCut names the keys
	// whose observations passed the cap.
	Orders    map[int64][]obs
	OrdersCut map[int64]bool
	Values    map[[2]int64]*valueTimes
}

// maxObsPerKey bounds the memory the orders of one key may take.
const maxObsPerKey = 100_000

type pending struct {
	time, index int64
	f           string
}

// collect streams the history once, through the histories package's reader
// so that the page and the checker agree on what the history says.
func collect(dir string, focusKeys map[int64]bool, evidence map[int64]bool, lineBudget int64) (*collected, error) {
	path := filepath.Join(dir, HistoryFile)
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.Size() > lineBudget {
		lineBudget = 0 // too big to inline: keep only the evidence
	}
	src, err := histories.Open(path, histories.FormatJSONL)
	if err != nil {
		return nil, err
	}
	c := &collected{
		Evidence:  map[int64][]byte{},
		Orders:    map[int64][]obs{},
		OrdersCut: map[int64]bool{},
		Values:    map[[2]int64]*valueTimes{},
		NemValues: map[int64]json.RawMessage{},
	}
	open := map[int64]pending{}
	var line []byte
	err = src.Scan(func(op *histories.Op) error {
		c.Ops++
		c.End = max(c.End, op.Time)
		c.MaxIndex = max(c.MaxIndex, op.Index)
		if lineBudget > 0 || evidence[op.Index] {
			// The reader checked the op, so encoding it back cannot fail
			// and gives the line as written (the codec is canonical).
			line, _ = histories.AppendJSON(line[:0], op)
		}
		if lineBudget > 0 {
			c.keepLine(op.Index, line)
		}
		if evidence[op.Index] {
			c.Evidence[op.Index] = append([]byte(nil), line...)
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
		c.add(bar{Process: p, Start: inv.time, End: c.End, Type: 'i', F: inv.f,
			Invoke: inv.index, Op: inv.index, Unfinished: true})
	}
	sort.Slice(c.Nemesis, func(i, j int) bool { return c.Nemesis[i].Start < c.Nemesis[j].Start })
	sort.Slice(c.Bars, func(i, j int) bool { return c.Bars[i].Start < c.Bars[j].Start })
	return c, nil
}

// pair turns invoke/completion pairs of a process into bars; a completion
// with no invoke (a lone nemesis info) is an instant.
func (c *collected) pair(open map[int64]pending, op *histories.Op) {
	if op.Type == histories.Invoke {
		if prev, ok := open[op.Process]; ok {
			// A process invoking twice never completed the first op.
			c.add(bar{Process: op.Process, Start: prev.time, End: op.Time, Type: 'i', F: prev.f,
				Invoke: prev.index, Op: prev.index, Unfinished: true})
		}
		open[op.Process] = pending{op.Time, op.Index, op.F}
		return
	}
	b := bar{Process: op.Process, Start: op.Time, End: op.Time, Type: string(op.Type)[0], F: op.F,
		Invoke: op.Index, Op: op.Index}
	if inv, ok := open[op.Process]; ok {
		b.Start, b.Invoke = inv.time, inv.index
		delete(open, op.Process)
	}
	c.add(b)
}

// keepLine keeps the raw JSON of op i for the page, which finds it by
// position: a history whose indexes are not dense from 0 keeps none.
func (c *collected) keepLine(i int64, line []byte) {
	if i != int64(len(c.Lines)) {
		c.Lines, c.linesOff = nil, true
	}
	if !c.linesOff {
		c.Lines = append(c.Lines, append([]byte(nil), line...))
	}
}

func (c *collected) add(b bar) {
	if b.Process < 0 {
		c.Nemesis = append(c.Nemesis, b)
		return
	}
	c.Bars = append(c.Bars, b)
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
			c.value(m.Key, m.Value).acked = op.Time
			if focus[m.Key] && m.Offset >= 0 {
				c.addObs(m.Key, obs{m.Offset, m.Value, op.Index, true})
			}
		case histories.MPoll:
			for k, recs := range m.Records {
				for _, rec := range recs {
					if v := c.value(k, rec.Value); v.read < 0 {
						v.read = op.Time
					}
					if focus[k] {
						c.addObs(k, obs{rec.Offset, rec.Value, op.Index, false})
					}
				}
			}
		}
	}
}

func (c *collected) value(k, v int64) *valueTimes {
	kv := [2]int64{k, v}
	t := c.Values[kv]
	if t == nil {
		t = &valueTimes{acked: -1, read: -1}
		c.Values[kv] = t
	}
	return t
}

func (c *collected) addObs(k int64, o obs) {
	if len(c.Orders[k]) >= maxObsPerKey {
		c.OrdersCut[k] = true
		return
	}
	c.Orders[k] = append(c.Orders[k], o)
}

// rawOp returns the raw JSON of an op for the page, or nil.
func (c *collected) rawOp(i int64) json.RawMessage {
	if b, ok := c.Evidence[i]; ok {
		return b
	}
	if c.Lines != nil && i >= 0 && i < int64(len(c.Lines)) {
		return c.Lines[i]
	}
	return nil
}
