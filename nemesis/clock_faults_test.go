package nemesis

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// fakeClocks is fakeBrokers whose clocks move: each move is logged, and
// the reading is the offset asked for, unless stuck says the node's
// clock does not move.
type fakeClocks struct {
	*fakeBrokers
	stuck map[int32]bool
}

func (f *fakeClocks) SkewClock(_ context.Context, n int32, offset time.Duration) (cluster.ClockReading, error) {
	err := f.log("clock %d %v", n, offset)
	r := cluster.ClockReading{Node: n, Skew: offset, RTT: time.Millisecond, How: "fake"}
	if f.stuck[n] {
		r.Skew = 0
		return r, errStuck
	}
	return r, err
}

var errStuck = errors.New("the clock did not move")

func TestClockSkewMovesTheTargetAndHealsToRealTime(t *testing.T) {
	f := &fakeClocks{fakeBrokers: newFakeBrokers()}
	fault := ClockSkew(f, targeting(f.fakeBrokers), targeting(f.fakeBrokers).Pick(TargetLeader), "leader", ClockSpec{Offset: time.Hour})
	ctx := context.Background()
	if err := fault.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fault.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Calls(), []string{"clock 2 1h0m0s", "clock 2 0s"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	start, stop := events(fault)
	if start != "clock-skew-start" || stop != "clock-skew-stop" {
		t.Errorf("events %s/%s, want clock-skew-start/clock-skew-stop (the report's timeline pairs them)", start, stop)
	}
	ev := fault.(Evidencer).Evidence()
	want := []string{"skew node 2: want 1h0m0s, read 1h0m0s (probe rtt 1ms)", "heal node 2: want 0s, read 0s (probe rtt 1ms)"}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("evidence %q, want %q", ev, want)
	}
	d := fault.(Detailer).Detail().(map[string]any)
	if d["mode"] != "bump" || d["offset"] != "1h0m0s" || len(d["clock"].([]ClockRead)) != 2 {
		t.Errorf("the op does not say what it did: %v", d)
	}
}

// A clock that does not move fails the start (the fault does not count as
// fired), names the node and leaves its reading; the heal still runs.
func TestClockSkewThatDoesNotMoveFails(t *testing.T) {
	f := &fakeClocks{fakeBrokers: newFakeBrokers(), stuck: map[int32]bool{2: true}}
	fault := ClockSkew(f, targeting(f.fakeBrokers), Nodes(1, 2), "nodes", ClockSpec{Offset: -30 * time.Second})
	ctx := context.Background()
	err := fault.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "node 2") {
		t.Fatalf("start: %v, want an error naming node 2", err)
	}
	ev := fault.(Evidencer).Evidence()
	if len(ev) != 2 || !strings.HasSuffix(ev[1], "the clock did not move") {
		t.Errorf("evidence %q, want node 1's reading and node 2's failure", ev)
	}
	f.stuck = nil
	if err := fault.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	heals := 0
	for _, c := range f.Calls() {
		if strings.HasSuffix(c, " 0s") {
			heals++
		}
	}
	if heals != 2 {
		t.Errorf("calls %v: want both nodes returned to real time", f.Calls())
	}
}

// A strobe flips between real time and the offset until the heal, which
// stops it before returning the clock to real time.
func TestClockStrobeFlipsUntilHealed(t *testing.T) {
	f := &fakeClocks{fakeBrokers: newFakeBrokers()}
	fault := ClockSkew(f, targeting(f.fakeBrokers), Nodes(3), "nodes", ClockSpec{Offset: time.Minute, Strobe: 20 * time.Millisecond})
	ctx := context.Background()
	if err := fault.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(f.Calls()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := fault.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if len(calls) < 4 || calls[0] != "clock 3 1m0s" || calls[1] != "clock 3 0s" || calls[2] != "clock 3 1m0s" {
		t.Fatalf("calls %v, want the offset, real time, the offset, ...", calls)
	}
	if calls[len(calls)-1] != "clock 3 0s" {
		t.Errorf("calls %v: the last move is not back to real time", calls)
	}
	n := len(f.Calls())
	time.Sleep(60 * time.Millisecond)
	if len(f.Calls()) != n {
		t.Errorf("the strobe went on after the heal: %v", f.Calls()[n:])
	}
}
