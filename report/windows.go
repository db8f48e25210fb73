package report

import (
	"encoding/json"

	"github.com/kafkachaos/kafkachaos/histories"
)

// window is a fault window: from a fault's start to its heal.
type window struct {
	Start, End int64
	Label      string
	Open       bool // never healed before the history ended
}

// faultWindows pairs nemesis ops into windows, reading each by
// histories.FaultOf as the checkers do. A fault starts when its op is
// invoked and ends when its heal completes; a heal closes the oldest open
// window of its kind, so overlapping faults each get their own.
// Instantaneous faults and heals of nothing open draw no window.
func faultWindows(nem []bar, end int64, values map[int64]json.RawMessage) []window {
	var out []window
	open := map[string][]int{} // kind -> indexes into out, oldest first
	for _, b := range nem {
		v := barValue(b, values)
		kind, edge := histories.FaultOf(&histories.Op{Process: histories.NemesisProcess, F: b.F, Value: v})
		switch edge {
		case histories.EdgeStart:
			open[kind] = append(open[kind], len(out))
			out = append(out, window{Start: b.Start, End: end, Label: label(kind, v), Open: true})
		case histories.EdgeStop:
			if q := open[kind]; len(q) > 0 {
				out[q[0]].End, out[q[0]].Open = b.End, false
				open[kind] = q[1:]
			}
		}
	}
	return out
}

// barValue is the value of a nemesis span: its completion's, else its
// invocation's.
func barValue(b bar, values map[int64]json.RawMessage) json.RawMessage {
	v := values[b.Op]
	if len(v) == 0 || string(v) == "null" {
		v = values[b.Invoke]
	}
	return v
}

// label is the fault's kind and, when short, its value v (e.g. the
// nodes).
func label(kind string, v json.RawMessage) string {
	if len(v) > 0 && len(v) <= 60 && string(v) != "null" {
		return kind + " " + string(v)
	}
	if nodes := detailNodes(v); nodes != "" {
		return kind + " nodes " + nodes
	}
	return kind
}

// detailNodes is the nodes a long nemesis value's detail names (the
// nemesis package writes {"detail":{"nodes":[...]}}, e.g. the broker an
// add-broker added), "" when it names none.
func detailNodes(v json.RawMessage) string {
	var op struct {
		Detail struct {
			Nodes json.RawMessage `json:"nodes"`
		} `json:"detail"`
	}
	if json.Unmarshal(v, &op) != nil || len(op.Detail.Nodes) == 0 || string(op.Detail.Nodes) == "null" {
		return ""
	}
	return string(op.Detail.Nodes)
}
