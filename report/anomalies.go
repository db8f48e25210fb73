package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// maxCasesShown bounds the cases listed per anomaly; the count is exact.
const maxCasesShown = 100

// maxEvidenceOps bounds the ops whose full JSON is printed in the page.
const maxEvidenceOps = 600

// descriptions say what each anomaly means, for a reader new to the names.
var descriptions = map[checkers.Anomaly]string{
	checkers.LostWrite:           "An acknowledged send that no ok op ever read, though later reads went past its offset.",
	checkers.Unseen:              "An acknowledged send never read, even by the final reads to the end of the log.",
	checkers.LostAfterRead:       "A record a consumer read that the final reads from the beginning of its key no longer contain: the log lost it.",
	checkers.Duplicate:           "One value stored at two offsets of the same key.",
	checkers.InconsistentOffsets: "Two different values observed at the same offset.",
	checkers.NonmonotonicSend:    "A producer's later send landed at a lower offset than an earlier one.",
	checkers.IntNonmonotonicSend: "Within one op, sends to a key landed out of order.",
	checkers.IntSendSkip:         "Within one op, sends to a key were not contiguous.",
	checkers.PollSkip:            "A consumer skipped offsets between two polls.",
	checkers.NonmonotonicPoll:    "A consumer read an offset lower than one it had already read.",
	checkers.IntPollSkip:         "Within one poll, offsets were skipped.",
	checkers.IntNonmonotonicPoll: "Within one poll, offsets went backwards.",
	checkers.DuplicateDelivery:   "The group processed one record more than once.",
	checkers.LostDelivery:        "A record below the group's committed offset that no member processed.",
	checkers.G1a:                 "A read of a value from an aborted transaction.",
	checkers.PrecommittedRead:    "A read of a transaction's value before that transaction committed.",
	checkers.G0:                  "A cycle of write-write dependencies between transactions.",
	checkers.G1c:                 "A cycle of write-write and write-read dependencies between transactions.",
}

// anomalyView is one anomaly type with its cases.
type anomalyView struct {
	Name        string
	Description string
	Count       int
	Cases       []caseView
	More        int
}

type caseView struct {
	Key, Value, Offsets, Who, Cycle string
	Explanation                     string
	Ops                             []int64
}

// anomalyOrder lists anomaly types: those results.json names in
// anomaly-types first, in its order, then any other with cases, by name.
func anomalyOrder(res runResults) []checkers.Anomaly {
	seen := map[checkers.Anomaly]bool{}
	var out []checkers.Anomaly
	for _, a := range res.AnomalyTypes {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	var rest []checkers.Anomaly
	for a := range res.Anomalies {
		if !seen[a] {
			rest = append(rest, a)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	return append(out, rest...)
}

func anomalyViews(res runResults, order []checkers.Anomaly) []anomalyView {
	out := make([]anomalyView, 0, len(order))
	for _, a := range order {
		cases := res.Anomalies[a]
		v := anomalyView{Name: string(a), Description: descriptions[a], Count: len(cases)}
		for _, c := range cases[:min(len(cases), maxCasesShown)] {
			v.Cases = append(v.Cases, newCaseView(c))
		}
		v.Count = max(v.Count, int(res.Counts[a]))
		v.More = v.Count - len(v.Cases)
		out = append(out, v)
	}
	return out
}

func newCaseView(c checkers.Case) caseView {
	v := caseView{Explanation: c.Explanation, Ops: c.Ops}
	if c.Key != nil {
		v.Key = fmt.Sprint(*c.Key)
	}
	if c.Value != nil {
		v.Value = fmt.Sprint(*c.Value)
	}
	if len(c.Offsets) > 0 {
		v.Offsets = strings.Trim(fmt.Sprint(c.Offsets), "[]")
	}
	if c.Process != nil {
		v.Who = fmt.Sprintf("process %d", *c.Process)
	}
	if c.Group != "" {
		v.Who = strings.TrimSpace(v.Who + " group " + c.Group)
	}
	var cyc []string
	for _, e := range c.Cycle {
		cyc = append(cyc, fmt.Sprintf("%d -%s(k%d)-> %d", e.From, e.Kind, e.Key, e.To))
	}
	v.Cycle = strings.Join(cyc, ", ")
	return v
}

// evidenceOps are the ops the shown cases name, capped, and for each the
// number of the first anomaly naming it (its colour on the timeline).
func evidenceOps(views []anomalyView) (map[int64]bool, map[int64]int) {
	set, first := map[int64]bool{}, map[int64]int{}
	for n, v := range views {
		for _, c := range v.Cases {
			for _, op := range c.Ops {
				if len(set) >= maxEvidenceOps {
					return set, first
				}
				if !set[op] {
					set[op], first[op] = true, n
				}
			}
		}
	}
	return set, first
}

// hangOps are the ops of the client hangs, for the evidence list.
func hangOps(l *checkers.Liveness) []int64 {
	if l == nil {
		return nil
	}
	out := make([]int64, len(l.ClientHangs))
	for i, h := range l.ClientHangs {
		out[i] = h.Index
	}
	return out
}
