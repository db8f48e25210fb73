package nemesis

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// fakeProxies is fakeBrokers with proxies: toxics are logged, holds
// report a count per node.
type fakeProxies struct {
	*fakeBrokers
	held map[int32]int64
}

func (f *fakeProxies) AddToxic(_ context.Context, n int32, name string, t kproxy.Toxic) error {
	return f.log("toxic %d %s %s", n, name, t.Kind)
}
func (f *fakeProxies) HealToxics(context.Context) error { return f.log("heal toxics") }
func (f *fakeProxies) HeldBy(n int32, _ string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held[n], nil
}
func (f *fakeProxies) ProbeProxy(context.Context, int32) (time.Duration, error) { return 0, nil }

func TestToxicOnTheTargetsProxiesAndHeal(t *testing.T) {
	f := &fakeProxies{fakeBrokers: newFakeBrokers()}
	fault := Toxic(f, targeting(f.fakeBrokers), TargetLeader, kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream",
		Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond})
	ctx := context.Background()
	if err := fault.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fault.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Calls(), []string{"toxic 2 kafkachaos latency", "heal toxics"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	d := fault.(Detailer).Detail().(map[string]any)
	if d["latency"] != "100ms" || d["jitter"] != "10ms" || !strings.Contains(d["mechanism"].(string), "toxiproxy latency") {
		t.Errorf("the op does not say what toxic it put: %v", d)
	}
	if d["heal-verified"] == nil {
		t.Errorf("the heal does not say what it verified: %v", d)
	}
}

// A hold counts what it held before its heal removes it, over windows.
func TestDelayedRequestsCountsWhatItHeld(t *testing.T) {
	f := &fakeProxies{fakeBrokers: newFakeBrokers(), held: map[int32]int64{}}
	fault := DelayedRequests(f, targeting(f.fakeBrokers), TargetAll, kproxy.Hold{APIKeys: []int16{kproxy.APIEndTxn}, For: time.Second})
	ctx := context.Background()
	for window := range 2 {
		if err := fault.Start(ctx); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.held[1], f.held[3] = 2, 1
		f.mu.Unlock()
		if hits := fault.(HitCounter).Hits(); hits != 3*window+3 {
			t.Errorf("window %d: hits %d while open, want %d", window, hits, 3*window+3)
		}
		if err := fault.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.held = map[int32]int64{} // the heal removed the toxics and their counts
		f.mu.Unlock()
	}
	if hits := fault.(HitCounter).Hits(); hits != 6 {
		t.Errorf("hits after two windows %d, want 6", hits)
	}
	if d := fault.(Detailer).Detail().(map[string]any); d["held"] != 6 {
		t.Errorf("detail held %v, want 6", d["held"])
	}
}

func TestBadToxicsFailAtStart(t *testing.T) {
	f := &fakeProxies{fakeBrokers: newFakeBrokers()}
	for _, fault := range []Fault{
		Toxic(f, targeting(f.fakeBrokers), TargetAll, kproxy.Toxic{Kind: "netem", Stream: "upstream"}),
		DelayedRequests(f, targeting(f.fakeBrokers), TargetAll, kproxy.Hold{For: time.Second}),
	} {
		if err := fault.Start(context.Background()); err == nil {
			t.Errorf("%s with a bad toxic started", fault.Name())
		}
	}
	if calls := f.Calls(); len(calls) > 0 {
		t.Errorf("a bad toxic reached the proxies: %v", calls)
	}
}
