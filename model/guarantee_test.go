package model

import (
	"encoding/json"
	"testing"
)

var all = []Guarantee{None, AtMostOnce, AtLeastOnce, ExactlyOnce}

func TestGuaranteeAxes(t *testing.T) {
	for _, g := range all {
		if got := FromAxes(g.MayLose(), g.MayDuplicate()); got != g {
			t.Errorf("FromAxes(%v axes) = %v", g, got)
		}
	}
	if !None.MayLose() || !None.MayDuplicate() || !AtMostOnce.MayLose() || AtMostOnce.MayDuplicate() ||
		AtLeastOnce.MayLose() || !AtLeastOnce.MayDuplicate() || ExactlyOnce.MayLose() || ExactlyOnce.MayDuplicate() {
		t.Error("axes do not match the definitions")
	}
}

func TestGuaranteeStringParseJSON(t *testing.T) {
	want := []string{"none", "at-most-once", "at-least-once", "exactly-once"}
	for i, g := range all {
		if g.String() != want[i] {
			t.Errorf("%d.String() = %q, want %q", int(g), g.String(), want[i])
		}
		p, err := ParseGuarantee(want[i])
		if err != nil || p != g {
			t.Errorf("ParseGuarantee(%q) = %v, %v", want[i], p, err)
		}
		b, err := json.Marshal(map[string]Guarantee{"g": g})
		if err != nil || string(b) != `{"g":"`+want[i]+`"}` {
			t.Errorf("marshal %v = %s, %v", g, b, err)
		}
		var back map[string]Guarantee
		if err := json.Unmarshal(b, &back); err != nil || back["g"] != g {
			t.Errorf("unmarshal %s = %v, %v", b, back, err)
		}
	}
}

func TestGuaranteeBadInput(t *testing.T) {
	if _, err := ParseGuarantee("exactly once"); err == nil {
		t.Error("ParseGuarantee accepted a misspelling")
	}
	var g Guarantee
	if err := json.Unmarshal([]byte(`"sometimes"`), &g); err == nil {
		t.Error("unmarshal accepted an unknown guarantee")
	}
	if _, err := json.Marshal(Guarantee(7)); err == nil {
		t.Error("marshal accepted an invalid guarantee")
	}
	if Guarantee(7).String() != "Guarantee(7)" {
		t.Errorf("invalid String() = %q", Guarantee(7).String())
	}
}

// TestSatisfiesLattice spells out the whole order: none < amo, alo < eo, and
// amo, alo incomparable.
func TestSatisfiesLattice(t *testing.T) {
	ok := map[[2]Guarantee]bool{
		{ExactlyOnce, None}: true, {ExactlyOnce, AtMostOnce}: true, {ExactlyOnce, AtLeastOnce}: true, {ExactlyOnce, ExactlyOnce}: true,
		{AtMostOnce, None}: true, {AtMostOnce, AtMostOnce}: true,
		{AtLeastOnce, None}: true, {AtLeastOnce, AtLeastOnce}: true,
		{None, None}: true,
	}
	for _, obs := range all {
		for _, exp := range all {
			if got := Satisfies(obs, exp); got != ok[[2]Guarantee{obs, exp}] {
				t.Errorf("Satisfies(observed %v, expected %v) = %v", obs, exp, got)
			}
		}
	}
}

func TestMeetIsGreatestLowerBound(t *testing.T) {
	for _, a := range all {
		for _, b := range all {
			m := Meet(a, b)
			if m != Meet(b, a) || !Satisfies(a, m) || !Satisfies(b, m) {
				t.Fatalf("Meet(%v, %v) = %v is not a commutative lower bound", a, b, m)
			}
			for _, c := range all {
				if Satisfies(a, c) && Satisfies(b, c) && !Satisfies(m, c) {
					t.Errorf("Meet(%v, %v) = %v is below the lower bound %v", a, b, m, c)
				}
			}
		}
	}
	if Meet(AtMostOnce, AtLeastOnce) != None {
		t.Error("loss on one hop and duplicates on the other must give none")
	}
}
