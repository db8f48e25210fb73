package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Processed is the values of the ok poll ops in ops, with how often each
// was processed.
func Processed(ops []histories.Op) map[int64]int {
	return readBy(ops, func(o histories.Op) bool { return o.F == histories.FPoll })
}

// readBy is the values the ok ops of ops that keep takes read, with how
// often each was read.
func readBy(ops []histories.Op, keep func(histories.Op) bool) map[int64]int {
	out := map[int64]int{}
	for _, o := range ops {
		if o.Type != histories.OK || !keep(o) {
			continue
		}
		for _, m := range o.Mops {
			for _, rs := range m.Records {
				for _, r := range rs {
					out[r.Value]++
				}
			}
		}
	}
	return out
}

// Committed is the highest offset per key of the commit mops of ok ops.
func Committed(ops []histories.Op) map[histories.Key]int64 {
	out := map[histories.Key]int64{}
	for _, o := range ops {
		if o.Type != histories.OK {
			continue
		}
		for _, m := range o.Mops {
			for k, off := range m.Offsets {
				if m.F == histories.MCommit && off > out[k] {
					out[k] = off
				}
			}
		}
	}
	return out
}

// Poller is a consumer under test, polled as its worker polls it.
type Poller interface {
	Poll(ctx context.Context, max int, wait time.Duration) error
}

// PollUntil polls c (7 records, 200 ms at a time) until the ok polls of
// ops processed n values, failing after 30 s or on a poll's error.
func PollUntil(t testing.TB, c Poller, ops func() []histories.Op, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(Processed(ops())) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d values processed in 30s: %v", len(Processed(ops())), n, ops())
		}
		if err := c.Poll(context.Background(), 7, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
}
