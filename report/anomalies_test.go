package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// renderRun renders a run with results as results.json.
func renderRun(t *testing.T, res runResults) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return renderResults(t, string(b))
}

// cases makes n cases of one anomaly spread over keys, offsets rising per
// key, each with a unique explanation to find it by.
func cases(a checkers.Anomaly, n, keys int) []checkers.Case {
	out := make([]checkers.Case, n)
	for i := range out {
		out[i] = checkers.Case{Key: ptr(int64(i % keys)), Offsets: []int64{int64(i / keys)}, Ops: []int64{int64(i)},
			Explanation: fmt.Sprintf("%s case #%d.", a, i)}
	}
	return out
}

// An acks=1 failover run: hundreds of inconsistent offsets and a few lost
// writes. The lost writes are what matter, so they come first, whatever
// order results.json lists the types in.
func TestLossIsShownBeforeOrdering(t *testing.T) {
	res := runResults{Result: checkers.Result{
		AnomalyTypes: []checkers.Anomaly{checkers.InconsistentOffsets, checkers.Duplicate, checkers.LostWrite},
		Anomalies: map[checkers.Anomaly][]checkers.Case{
			checkers.InconsistentOffsets: cases(checkers.InconsistentOffsets, 549, 3),
			checkers.Duplicate:           cases(checkers.Duplicate, 2, 1),
			checkers.LostWrite:           cases(checkers.LostWrite, 3, 1),
		}}}
	page := renderRun(t, res)
	at := func(s string) int {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("page lacks %q", s)
		}
		return i
	}
	if !(at(`data-anomaly="lost-write"`) < at(`data-anomaly="duplicate"`) && at(`data-anomaly="duplicate"`) < at(`data-anomaly="inconsistent-offsets"`)) {
		t.Error("anomaly sections are not in the order loss, duplication, ordering")
	}
	if !(at(`href="#a-lost-write"`) < at(`href="#a-inconsistent-offsets"`)) {
		t.Error("the verdict lists inconsistent-offsets before lost-write")
	}
	if at("lost-write case #2.") > at("inconsistent-offsets case #0.") {
		t.Error("a lost write is listed after an inconsistent offset")
	}
}

func TestAnomalyOrderByMeaning(t *testing.T) {
	res := runResults{Result: checkers.Result{
		AnomalyTypes: []checkers.Anomaly{checkers.G1c, checkers.PollSkip, checkers.DuplicateDelivery, checkers.Unseen, checkers.LostWrite},
		Anomalies:    map[checkers.Anomaly][]checkers.Case{"some-new-anomaly": nil, checkers.Duplicate: nil, checkers.LostDelivery: nil},
	}}
	want := []checkers.Anomaly{checkers.Unseen, checkers.LostWrite, checkers.LostDelivery, // loss, in results.json's order then by name
		checkers.DuplicateDelivery, checkers.Duplicate, checkers.PollSkip, checkers.G1c, "some-new-anomaly"}
	if got := anomalyOrder(res); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// A torn transaction is loss: shown with the losses, before duplicates and
// the other transactional anomalies, and said in words. An interleaved one
// loses nothing: it goes with the transactional anomalies, last.
func TestTornIsLossInterleavedIsNot(t *testing.T) {
	types := []checkers.Anomaly{checkers.InterleavedTransaction, checkers.G1a, checkers.Duplicate, checkers.TornTransaction}
	res := runResults{Result: checkers.Result{AnomalyTypes: types, Anomalies: map[checkers.Anomaly][]checkers.Case{}}}
	for _, a := range types {
		res.Anomalies[a] = cases(a, 1, 1)
	}
	want := []checkers.Anomaly{checkers.TornTransaction, checkers.Duplicate, checkers.InterleavedTransaction, checkers.G1a}
	if got := anomalyOrder(res); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	page := renderRun(t, res)
	for _, say := range []string{"only part of whose writes readers saw", "landed inside the same producer"} {
		if !strings.Contains(page, say) {
			t.Errorf("the page does not say %q", say)
		}
	}
}

// A 600-case type shows a summary per key and its first cases; the other
// cases are folded, and every one of them is in the page.
func TestLargeCaseSetIsSummarizedAndComplete(t *testing.T) {
	const n = 600
	a := checkers.InconsistentOffsets
	res := runResults{Result: checkers.Result{AnomalyTypes: []checkers.Anomaly{a},
		Anomalies: map[checkers.Anomaly][]checkers.Case{a: cases(a, n, 2)}}}
	page := renderRun(t, res)
	section := page[strings.Index(page, `id="a-inconsistent-offsets"`):strings.Index(page, `<section id="scenario">`)]
	summary := `<tr><td class="num">0</td><td class="num">300</td><td class="num">0–299</td></tr>`
	if !strings.Contains(section, summary) || !strings.Contains(section, `<td class="num">1</td><td class="num">300</td>`) {
		t.Errorf("no per-key summary with counts and offset ranges in\n%.1500s", section)
	}
	folded := strings.Index(section, `<details class="morecases">`)
	if folded < 0 || !strings.Contains(section, "the other 590 cases") {
		t.Fatal("the cases past the first are not folded in <details>")
	}
	for i := range n {
		at := strings.Index(section, fmt.Sprintf("inconsistent-offsets case #%d.", i))
		switch {
		case at < 0:
			t.Fatalf("case %d is not in the page", i)
		case i < firstCases && at > folded:
			t.Errorf("case %d is folded, want it shown at once", i)
		case i >= firstCases && at < folded:
			t.Errorf("case %d is shown at once, want it folded", i)
		}
	}
	if strings.Contains(section, "did not keep") {
		t.Error("the page says cases are missing from results.json")
	}
}

func TestRangesJoinConsecutiveOffsets(t *testing.T) {
	if got := ranges([]int64{9, 3, 4, 5, 12, 4, 40, 41}); got != "3–5, 9, 12, 40–41" {
		t.Errorf("ranges = %q", got)
	}
	var many []int64
	for i := range int64(20) {
		many = append(many, i*10)
	}
	if got := ranges(many); !strings.HasSuffix(got, "110, … (8 more ranges)") {
		t.Errorf("ranges of 20 = %q, want 12 listed and 8 counted", got)
	}
}

// Counts past what results.json kept are said, not hidden.
func TestCountsPastKeptCasesAreSaid(t *testing.T) {
	a := checkers.PollSkip
	res := runResults{Result: checkers.Result{AnomalyTypes: []checkers.Anomaly{a},
		Anomalies: map[checkers.Anomaly][]checkers.Case{a: cases(a, 30, 1)}},
		Counts: map[checkers.Anomaly]int64{a: 1000}}
	page := renderRun(t, res)
	if !strings.Contains(page, "1000 cases") || !strings.Contains(page, "970 more cases the checker counted but did not keep in results.json") {
		t.Error("the page does not say how many cases results.json lacks")
	}
}
