package ctxsleep

import (
	"context"
	"time"
)

// For waits d, or not at all when d <= 0, and reports whether the wait
// ran its course: false when ctx ended first, and, with no wait, when ctx
// has ended, so that a loop paced by For stops on its context even with
// no pause between turns.
func For(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Until is For until t.
func Until(ctx context.Context, t time.Time) bool {
	return For(ctx, time.Until(t))
}
