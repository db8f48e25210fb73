package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
)

// CheckCloseCompletesEverySend holds every produce request for 3s, sends
// four values through p (a producer of four lanes on keys 0 and 1, no op
// recorded yet), closes it with 500ms to flush, and fails t unless every
// invoke got its completion and none is fail: the broker held the
// requests, so their fate is unknown, never a definite failure.
func CheckCloseCompletesEverySend(t *testing.T, faults cluster.RequestFaulter, p Sender, ops func() []histories.Op) {
	t.Helper()
	d, err := faults.Delay(cluster.RequestFault{Keys: []int16{0}}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	for v := range int64(4) {
		if err := p.SendAsync(t.Context(), histories.Key(v%2), v, nil); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := ops()
	CheckPaired(t, got)
	if len(got) != 8 {
		t.Fatalf("%d ops after close, want 8 (every invoke completed): %v", len(got), got)
	}
	for _, o := range got {
		if o.Type == histories.Fail {
			t.Fatalf("op %d: a send the broker held at the close is fail, want ok or info", o.Index)
		}
	}
}

// Crasher is a producer under test that can crash.
type Crasher interface {
	Sender
	Crash()
}

// CheckCrashMidSend sends one value to key 0 through p (ok), then holds
// produce requests for 5s, sends another to key 1, crashes p while the
// broker holds it, and fails t unless that send completes as info at the
// crash.
func CheckCrashMidSend(t *testing.T, faults cluster.RequestFaulter, p Crasher) {
	t.Helper()
	if typ := SendOne(t, p, 0, 1); typ != histories.OK {
		t.Fatalf("send before the crash: %s", typ)
	}
	d, err := faults.Delay(cluster.RequestFault{Keys: []int16{0}}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	res := make(chan histories.Type, 1)
	if err := p.SendAsync(t.Context(), 1, 2, func(typ histories.Type) { res <- typ }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	p.Crash()
	select {
	case typ := <-res:
		if typ != histories.Info {
			t.Fatalf("in-flight send at the crash: %s, want info", typ)
		}
	case <-time.After(time.Second):
		t.Fatal("the in-flight send did not complete at the crash")
	}
}
