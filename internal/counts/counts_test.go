package counts

import "testing"

func TestCounts(t *testing.T) {
	var c Counts
	if s := c.String(); s != "" {
		t.Fatalf("empty counts print %q", s)
	}
	c = c.Add(Counts{"Produce unanswered": 2, "EndTxn accepted": 1, "zero": 0})
	c = c.Add(Counts{"Produce unanswered": 3})
	if s, want := c.String(), "EndTxn accepted 1, Produce unanswered 5"; s != want {
		t.Fatalf("counts print %q, want %q", s, want)
	}
}
