package generators

import (
	"fmt"
	"testing"
	"time"
)

func TestClockSkewParamsAreChecked(t *testing.T) {
	ok := func(f Fault) Scenario {
		s := Baseline("clock", "local", 20*time.Second)
		f.Start, f.Duration = Duration(time.Second), Duration(10*time.Second)
		s.Nemesis = []Fault{f}
		return s
	}
	for _, f := range []Fault{
		{Kind: KindClockSkew},
		{Kind: KindClockSkew, Params: FaultParams{Offset: Duration(-30 * time.Second), Target: "leader"}},
		{Kind: KindClockSkew, Params: FaultParams{Offset: Duration(time.Hour), Mode: ClockBump, Nodes: []int32{2}}},
		{Kind: KindClockSkew, Params: FaultParams{Offset: Duration(90 * time.Second), Mode: ClockStrobe, Every: Duration(3 * time.Second)}},
	} {
		s := ok(f)
		checkValidation(t, fmt.Sprintf("%+v", f), s, "")
		if !s.Clocked() {
			t.Errorf("%+v: the scenario does not ask for movable clocks", f)
		}
	}
	for _, tc := range []struct {
		f     Fault
		field string
	}{
		{Fault{Kind: KindClockSkew, Params: FaultParams{Offset: Duration(100 * time.Millisecond)}}, "params.offset"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Offset: Duration(-11 * 365 * 24 * time.Hour)}}, "params.offset"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Mode: "wobble"}}, "params.mode"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Every: Duration(4 * time.Second)}}, "params.every"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Mode: ClockStrobe, Every: Duration(time.Second)}}, "params.every"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Mode: ClockStrobe, Every: Duration(6 * time.Second)}}, "duration"},
		{Fault{Kind: KindClockSkew, Params: FaultParams{Target: "the-leader"}}, "params.target"},
		{Fault{Kind: KindKill, Params: FaultParams{Offset: Duration(time.Minute)}}, "only clock-skew reads it"},
		{Fault{Kind: KindPause, Params: FaultParams{Mode: ClockStrobe}}, "only clock-skew reads it"},
	} {
		checkValidation(t, fmt.Sprintf("%+v", tc.f), ok(tc.f), tc.field)
	}
	if s := Baseline("plain", "local", 10*time.Second); s.Clocked() {
		t.Error("a scenario without clock faults asks for movable clocks")
	}
}

func TestClockSkewDefaults(t *testing.T) {
	bump := FaultParams{}
	strobe := FaultParams{Mode: ClockStrobe}
	if bump.ClockOffset() != DefaultClockOffset || bump.StrobePeriod() != 0 {
		t.Errorf("a bare clock-skew: offset %v, strobe %v; want %v and none", bump.ClockOffset(), bump.StrobePeriod(), DefaultClockOffset)
	}
	if strobe.StrobePeriod() != DefaultStrobe {
		t.Errorf("a strobe without a period flips every %v, want %v", strobe.StrobePeriod(), DefaultStrobe)
	}
	if got := KindCapability(KindClockSkew); got != "clock" {
		t.Errorf("clock-skew needs capability %q, want clock", got)
	}
}
