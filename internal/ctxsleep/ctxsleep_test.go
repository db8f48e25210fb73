package ctxsleep

import (
	"context"
	"testing"
	"time"
)

func TestForWaitsTheWholePause(t *testing.T) {
	began := time.Now()
	if !For(context.Background(), 20*time.Millisecond) {
		t.Fatal("For on a live context reported it ended")
	}
	if took := time.Since(began); took < 20*time.Millisecond {
		t.Errorf("For returned after %v, before its 20ms", took)
	}
}

// A context that ends during the pause ends it early; one that has ended
// stops a loop at once, with or without a pause. (A pause so short that it
// ends as soon as the context may go either way.)
func TestForEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if For(ctx, time.Hour) {
		t.Fatal("For waited out an hour past its context's end")
	}
	for _, d := range []time.Duration{-time.Second, 0, time.Hour} {
		if For(ctx, d) {
			t.Errorf("For(ended context, %v) = true, want false", d)
		}
	}
}

func TestForWithNoPauseIsTheContextsState(t *testing.T) {
	if !For(context.Background(), 0) || !Until(context.Background(), time.Now().Add(-time.Hour)) {
		t.Error("no pause on a live context reported it ended")
	}
}
