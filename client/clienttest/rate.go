package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Sender is what every producer under test offers a benchmark.
type Sender interface {
	SendAsync(ctx context.Context, key histories.Key, value int64, then func(histories.Type)) error
	Close(ctx context.Context) error
}

// SendRate sends n values through p, over keys 0 and 1, closes it and
// returns ok sends per second; any send that is not ok fails b.
func SendRate(b testing.TB, p Sender, n int) float64 {
	defer p.Close(context.Background())
	done := make(chan histories.Type, n)
	start := time.Now()
	for v := range n {
		if err := p.SendAsync(b.Context(), histories.Key(v%2), int64(v+1), func(t histories.Type) { done <- t }); err != nil {
			b.Fatal(err)
		}
	}
	for range n {
		if t := <-done; t != histories.OK {
			b.Fatalf("a send ended %s", t)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// SendOne sends value to key through p and returns its completion type;
// one that has not come in 30s fails t.
func SendOne(t testing.TB, p Sender, key histories.Key, value int64) histories.Type {
	t.Helper()
	res := make(chan histories.Type, 1)
	if err := p.SendAsync(t.Context(), key, value, func(typ histories.Type) { res <- typ }); err != nil {
		t.Fatal(err)
	}
	select {
	case typ := <-res:
		return typ
	case <-time.After(30 * time.Second):
		t.Fatalf("send of %d: no completion in 30s", value)
		return ""
	}
}
