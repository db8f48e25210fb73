package checkers

// Case is one finding: what was seen, where, and the ops that prove it.
type Case struct {
	Key   *int64 `json:"key,omitempty"`
	Value *int64 `json:"value,omitempty"`
	// Offsets involved (e.g. the two offsets of a duplicate, the skipped range).
	Offsets []int64 `json:"offsets,omitempty"`
	// Ops are the indexes of the ops that prove the case, most telling first.
	Ops []int64 `json:"ops"`
	// Process and Group, where the case concerns one consumer or one group.
	Process *int64 `json:"process,omitempty"`
	Group   string `json:"group,omitempty"`
	// Cycle lists the dependency edges of a G0/G1c cycle, in order.
	Cycle []Edge `json:"cycle,omitempty"`
	// Explanation says in one sentence why this is an anomaly.
	Explanation string `json:"explanation"`
}

// Edge is a dependency between two transactions (by op index).
type Edge struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Kind string `json:"kind"` // "ww" or "wr"
	Key  int64  `json:"key"`
}

// Stats counts what the checker saw.
type Stats struct {
	Ops        int64            `json:"ops"`
	OpsByType  map[string]int64 `json:"ops-by-type"` // "f type" -> count, e.g. "send ok"
	Keys       int64            `json:"keys"`
	Writes     int64            `json:"writes"`       // send micro-ops attempted
	AckedWrite int64            `json:"acked-writes"` // send micro-ops in ok ops
	Reads      int64            `json:"reads"`        // records returned by polls
}

// Result is a checker's verdict on one history.
type Result struct {
	Valid        bool               `json:"valid"`
	AnomalyTypes []Anomaly          `json:"anomaly-types"`
	Anomalies    map[Anomaly][]Case `json:"anomalies"`
	// Counts is the exact number of cases of each anomaly found, also when
	// Options.MaxCases kept fewer in Anomalies.
	Counts map[Anomaly]int64 `json:"counts"`
	Stats  Stats             `json:"stats"`
	// Liveness holds findings that are not anomalies (client hangs); they
	// never change Valid. Nil when there are none.
	Liveness *Liveness `json:"liveness,omitempty"`
	// Warnings are things the checker wants a person to know that are not
	// anomalies (e.g. a truncated last line, an unknown op f).
	Warnings []string `json:"warnings,omitempty"`
}
