package histories

import (
	"encoding/json"
	"strings"
)

// Edge is what a nemesis op does to its fault.
type Edge int

const (
	// EdgeNone: the op is no fault event (a client op).
	EdgeNone Edge = iota
	// EdgeStart opens the fault's window.
	EdgeStart
	// EdgeStop heals it: it closes the oldest open window of its kind,
	// and closes nothing after an instantaneous fault.
	EdgeStop
	// EdgeInstant acts at once and holds no window.
	EdgeInstant
)

// The event convention every recorder follows: a fault kind that holds a
// window records FaultStart(kind) when it starts and FaultStop(kind) when
// it is healed; an instantaneous kind records the kind itself when it
// acts (and FaultStop(kind) for the heal a schedule runs after it, which
// closes nothing). The op's value is an object whose "fault" is the kind.
// FaultOf reads this and the names of older histories and of Jepsen's.

// FaultStart is the f of the op that starts a window of kind.
func FaultStart(kind string) string { return kind + "-start" }

// FaultStop is the f of the op that heals a fault of kind.
func FaultStop(kind string) string { return kind + "-stop" }

// FaultEvents is the start and stop f of kind: FaultStart and FaultStop,
// or for an instantaneous kind the kind itself and FaultStop.
func FaultEvents(kind string, instantaneous bool) (start, stop string) {
	if instantaneous {
		return kind, FaultStop(kind)
	}
	return FaultStart(kind), FaultStop(kind)
}

// FaultOf reads a nemesis op: the fault's kind (its value's "fault" when
// there is one, else the name in its f) and what the op does to it. It
// reads the convention above and the older names: "x"/"x-heal",
// "x"/"x-done" (an instantaneous x), kill/restart, pause/resume,
// partition/heal, pause-client/resume-client, and Jepsen's
// "start-x"/"stop-x" and kill/start. A nemesis f that says neither start
// nor stop is instantaneous. Client ops are EdgeNone.
func FaultOf(op *Op) (kind string, edge Edge) {
	if op.Process != NemesisProcess {
		return "", EdgeNone
	}
	kind, edge = nameEdge(op.F)
	if v := valueFault(op.Value); v != "" {
		kind = v
	}
	return kind, edge
}

// nameEdge reads a nemesis f alone.
func nameEdge(f string) (string, Edge) {
	switch f {
	case "kill", "pause", "partition", "delay", "drop-connections", "power-loss", "disk-fault",
		"latency", "delayed-requests", "packet-loss", "slow-link", "pause-client":
		return f, EdgeStart // the kinds whose start was once recorded under their bare name
	case "restart", "start":
		return "kill", EdgeStop
	case "resume":
		return "pause", EdgeStop
	case "heal":
		return "partition", EdgeStop
	case "resume-client":
		return "pause-client", EdgeStop
	}
	for _, a := range []struct {
		affix  string
		prefix bool
		edge   Edge
	}{{"-start", false, EdgeStart}, {"-stop", false, EdgeStop}, {"-heal", false, EdgeStop}, {"-done", false, EdgeStop},
		{"start-", true, EdgeStart}, {"stop-", true, EdgeStop}} {
		if base, ok := strings.CutSuffix(f, a.affix); ok && !a.prefix && base != "" {
			return base, a.edge
		}
		if base, ok := strings.CutPrefix(f, a.affix); ok && a.prefix && base != "" {
			return base, a.edge
		}
	}
	return f, EdgeInstant
}

// valueFault is the "fault" of an op's object value, "" when it has none.
func valueFault(v json.RawMessage) string {
	if len(v) == 0 || v[0] != '{' {
		return ""
	}
	var f struct {
		Fault string `json:"fault"`
	}
	if json.Unmarshal(v, &f) != nil {
		return ""
	}
	return f.Fault
}

// jepsenNames is the f Jepsen's nemeses give the start and stop of kind:
// its combined nemesis's :kill/:start, :pause/:resume and
// :start-partition/:stop-partition for the kinds that are such, else
// :start-<kind>/:stop-<kind>.
func jepsenNames(kind string) (start, stop string) {
	switch kind {
	case "kill":
		return "kill", "start"
	case "pause":
		return "pause", "resume"
	case "partition", "isolate-leader", "bridge", "isolate-leader-replication", "cut-clients":
		return "start-partition", "stop-partition"
	}
	return "start-" + kind, "stop-" + kind
}

// jepsenF is the f the EDN export writes for a nemesis op whose value
// names its fault: Jepsen's name for what it does. Other ops keep theirs.
func jepsenF(op *Op) string {
	if op.Process != NemesisProcess || valueFault(op.Value) == "" {
		return op.F
	}
	kind, edge := FaultOf(op)
	start, stop := jepsenNames(kind)
	switch edge {
	case EdgeStart:
		return start
	case EdgeStop:
		return stop
	}
	return kind
}

// fromJepsenF is the f EDN import gives a nemesis op whose value names its
// fault and whose f is Jepsen's name for its start or stop: the
// convention's. Other ops keep theirs, so export then import gives back an
// op of the convention as it was.
func fromJepsenF(op *Op) string {
	kind := valueFault(op.Value)
	if op.Process != NemesisProcess || kind == "" {
		return op.F
	}
	switch start, stop := jepsenNames(kind); op.F {
	case start:
		return FaultStart(kind)
	case stop:
		return FaultStop(kind)
	}
	return op.F
}
