package report

import (
	"encoding/json"
	"strings"
)

// window is a fault window: from a fault's start to its heal.
type window struct {
	Start, End int64
	Label      string
	Open       bool // never healed before the history ended
}

// healOf names the nemesis f that ends a fault started by f, or "" when f
// does not start a window. present holds every nemesis f in the history: a
// fault "x" healed by "x-heal" (the nemesis package's convention for request
// faults, packet loss and slow links) opens a window only when its heal is
// there to close it, so a one-off event is not drawn as a fault forever.
func healOf(f string, present map[string]bool) string {
	if present[f+"-heal"] {
		return f + "-heal"
	}
	switch f {
	case "kill":
		return "restart"
	case "pause":
		return "resume"
	case "partition":
		return "heal"
	}
	if base, ok := strings.CutSuffix(f, "-start"); ok {
		return base + "-stop"
	}
	if base, ok := strings.CutPrefix(f, "start-"); ok {
		return "stop-" + base
	}
	return ""
}

// faultWindows pairs nemesis ops into windows. A fault starts when its op
// is invoked and ends when its heal completes; overlapping faults of
// different kinds get their own windows. Heals of everything ("heal" after
// several partitions) close every open window of that kind.
func faultWindows(nem []bar, end int64, values map[int64]json.RawMessage) []window {
	var out []window
	present := map[string]bool{}
	for _, b := range nem {
		present[b.F] = true
	}
	open := map[string][]int{} // heal f -> indexes into out
	for _, b := range nem {
		if h := healOf(b.F, present); h != "" {
			open[h] = append(open[h], len(out))
			out = append(out, window{Start: b.Start, End: end, Label: label(b, values), Open: true})
			continue
		}
		for _, i := range open[b.F] {
			out[i].End, out[i].Open = b.End, false
		}
		delete(open, b.F)
	}
	return out
}

// label is the fault's f and, when short, its value (e.g. the nodes).
func label(b bar, values map[int64]json.RawMessage) string {
	v := values[b.Op]
	if len(v) == 0 || string(v) == "null" {
		v = values[b.Invoke]
	}
	if len(v) > 0 && len(v) <= 60 && string(v) != "null" {
		return b.F + " " + string(v)
	}
	if nodes := detailNodes(v); nodes != "" {
		return b.F + " nodes " + nodes
	}
	return b.F
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
