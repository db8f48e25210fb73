package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// An anomaly type with more than summarizeAbove cases is summarized: its
// cases per key with their offset ranges, the first firstCases cases, and
// the rest folded in a <details> element. Every case results.json holds is
// in the page; only how much of it shows at first is bounded.
const (
	summarizeAbove = 20
	firstCases     = 10
	maxSummaryKeys = 30 // keys listed in a summary; the rest are counted
	maxRanges      = 12 // offset ranges listed per key; the rest are counted
)

// maxEvidenceOps bounds the ops whose full JSON is printed in the page.
const maxEvidenceOps = 600

// descriptions say what each anomaly means, for a reader new to the names.
var descriptions = map[checkers.Anomaly]string{
	checkers.LostWrite:              "An acknowledged send that no ok op ever read, though later reads went past its offset.",
	checkers.Unseen:                 "An acknowledged send never read, even by the final reads to the end of the log.",
	checkers.LostAfterRead:          "A record a consumer read that the final reads from the beginning of its key no longer contain: the log lost it.",
	checkers.Duplicate:              "One value stored at two offsets of the same key.",
	checkers.InconsistentOffsets:    "Two different values observed at the same offset.",
	checkers.NonmonotonicSend:       "A producer's later send landed at a lower offset than an earlier one.",
	checkers.IntNonmonotonicSend:    "Within one op, sends to a key landed out of order.",
	checkers.IntSendSkip:            "Within one op, sends to a key were not contiguous.",
	checkers.PollSkip:               "A consumer skipped offsets between two polls.",
	checkers.NonmonotonicPoll:       "A consumer read an offset lower than one it had already read.",
	checkers.IntPollSkip:            "Within one poll, offsets were skipped.",
	checkers.IntNonmonotonicPoll:    "Within one poll, offsets went backwards.",
	checkers.DuplicateDelivery:      "The group processed one record more than once.",
	checkers.LostDelivery:           "A record below the group's committed offset that no member processed.",
	checkers.G1a:                    "A read of a value from an aborted transaction.",
	checkers.PrecommittedRead:       "A read of a transaction's value before that transaction committed.",
	checkers.G0:                     "A cycle of write-write dependencies between transactions.",
	checkers.G1c:                    "A cycle of write-write and write-read dependencies between transactions.",
	checkers.TornTransaction:        "A committed transaction only part of whose writes readers saw: the others were never read, though reads covered them.",
	checkers.InterleavedTransaction: "A committed transaction's write that landed inside the same producer's later transaction: atomicity broken, though nothing was lost.",
}

// groups rank anomaly types by what they mean for the user: acknowledged
// data gone first, then data delivered or stored twice, then data out of
// order or disagreeing, then the rest (transactional anomalies, and any
// type this table does not know yet).
var groups = map[checkers.Anomaly]group{
	checkers.LostWrite: loss, checkers.LostAfterRead: loss, checkers.LostDelivery: loss, checkers.Unseen: loss, checkers.TornTransaction: loss,
	checkers.Duplicate: duplication, checkers.DuplicateDelivery: duplication,
	checkers.InconsistentOffsets: ordering, checkers.NonmonotonicSend: ordering, checkers.IntNonmonotonicSend: ordering,
	checkers.IntSendSkip: ordering, checkers.PollSkip: ordering, checkers.NonmonotonicPoll: ordering,
	checkers.IntPollSkip: ordering, checkers.IntNonmonotonicPoll: ordering,
}

type group int

const (
	loss group = iota
	duplication
	ordering
	other
)

func groupOf(a checkers.Anomaly) group {
	if g, ok := groups[a]; ok {
		return g
	}
	return other
}

func (g group) String() string { return [...]string{"loss", "duplication", "ordering", "other"}[g] }

// anomalyView is one anomaly type with its cases.
type anomalyView struct {
	Name        string
	Group       string
	Description string
	Count       int
	Listed      int          // cases results.json holds, all in the page
	Summary     []keySummary // for large case sets, else nil
	MoreKeys    int          // keys past the summary's cap
	Cases       []caseView   // shown at once
	Rest        []caseView   // folded in <details>
	More        int          // counted by the checker, not kept in results.json
}

// keySummary is one key's share of a large case set.
type keySummary struct {
	Key     string
	Cases   int
	Offsets string // ranges, e.g. "3–9, 12, 40–41"
}

type caseView struct {
	Key, Value, Offsets, Who, Cycle string
	Explanation                     string
	Ops                             []int64
}

// anomalyOrder lists anomaly types by group (loss, duplication, ordering,
// other); within a group, those results.json names in anomaly-types first,
// in its order, then any other with cases, by name.
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
	out = append(out, rest...)
	sort.SliceStable(out, func(i, j int) bool { return groupOf(out[i]) < groupOf(out[j]) })
	return out
}

func anomalyViews(res runResults, order []checkers.Anomaly) []anomalyView {
	out := make([]anomalyView, 0, len(order))
	for _, a := range order {
		cases := res.Anomalies[a]
		v := anomalyView{Name: string(a), Group: groupOf(a).String(), Description: descriptions[a],
			Count: max(len(cases), int(res.Counts[a])), Listed: len(cases)}
		shown := len(cases)
		if len(cases) > summarizeAbove {
			v.Summary, v.MoreKeys = summarize(cases)
			shown = firstCases
		}
		for i, c := range cases {
			if i < shown {
				v.Cases = append(v.Cases, newCaseView(c))
			} else {
				v.Rest = append(v.Rest, newCaseView(c))
			}
		}
		v.More = v.Count - len(cases)
		out = append(out, v)
	}
	return out
}

// summarize counts a case set per key, keys in order (cases without a key
// last), with the offsets each key's cases name as ranges.
func summarize(cases []checkers.Case) ([]keySummary, int) {
	type acc struct {
		n    int
		offs []int64
	}
	byKey := map[int64]*acc{}
	var keys []int64
	var noKey acc
	for _, c := range cases {
		a := &noKey
		if c.Key != nil {
			if a = byKey[*c.Key]; a == nil {
				a = &acc{}
				byKey[*c.Key] = a
				keys = append(keys, *c.Key)
			}
		}
		a.n++
		a.offs = append(a.offs, c.Offsets...)
	}
	slices.Sort(keys)
	var out []keySummary
	for _, k := range keys[:min(len(keys), maxSummaryKeys)] {
		out = append(out, keySummary{fmt.Sprint(k), byKey[k].n, ranges(byKey[k].offs)})
	}
	if noKey.n > 0 {
		out = append(out, keySummary{"no key", noKey.n, ranges(noKey.offs)})
	}
	return out, max(0, len(keys)-maxSummaryKeys)
}

// ranges writes sorted distinct offsets as runs of consecutive ones,
// capped at maxRanges runs.
func ranges(offs []int64) string {
	slices.Sort(offs)
	offs = slices.Compact(offs)
	var parts []string
	for i := 0; i < len(offs); {
		j := i
		for j+1 < len(offs) && offs[j+1] == offs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(offs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", offs[i], offs[j]))
		}
		i = j + 1
	}
	if len(parts) > maxRanges {
		return strings.Join(parts[:maxRanges], ", ") + fmt.Sprintf(", … (%d more ranges)", len(parts)-maxRanges)
	}
	return strings.Join(parts, ", ")
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

// evidenceOps are the ops the cases name, those shown at once before the
// folded ones, capped, and for each the number of the first anomaly naming
// it (its colour on the timeline). An op past the cap still has its link:
// the page finds it on the timeline.
func evidenceOps(views []anomalyView) (map[int64]bool, map[int64]int) {
	set, first := map[int64]bool{}, map[int64]int{}
	for _, folded := range []bool{false, true} {
		for n, v := range views {
			cases := v.Cases
			if folded {
				cases = v.Rest
			}
			for _, c := range cases {
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
	}
	return set, first
}
