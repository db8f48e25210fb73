package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
)

// The proxy faults on the selected cluster (the embedded one by default:
// kfake advertises a proxy per broker as real brokers do), so one scenario
// runs everywhere. run_local_proxy_test.go has the real-Kafka claims.

// TestChaosLatency: 100 ms ± 10 ms on every client connection for the
// middle of the run; the safe configuration keeps its guarantee and its
// sends take the latency.
func TestChaosLatency(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("latency", 4*time.Second)
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindLatency, Start: start, Duration: dur,
		Params: generators.FaultParams{Delay: d(100 * time.Millisecond), Jitter: d(10 * time.Millisecond)}}}
	out := run(t, s)
	mustHaveWorked(t, out, 20, "send")
	if q := out.Stats.Latency["send"]; q.P99 < 90 {
		t.Errorf("send p99 %.1f ms under 100 ms ± 10 ms of latency: the latency did not reach the clients", q.P99)
	}
}

// TestChaosDelayedRequestsTransactions: a transactional copy whose produce,
// EndTxn and TxnOffsetCommit requests are held for 500 ms each stays
// exactly-once, and the hold held requests.
func TestChaosDelayedRequestsTransactions(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("delayed-requests-txn", 4*time.Second)
	s = s.TransactionalCopy(2, 0.3, 300)
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindDelayedRequests, Start: start, Duration: dur,
		Params: generators.FaultParams{Delay: d(500 * time.Millisecond), Requests: []string{"produce", "end-txn", "txn-offset-commit"}}}}
	out := run(t, s)
	// each held transaction takes 1.5 s: 31-35 commit in 4 s here, 14 in a
	// loaded CI run (before and after the window, mostly)
	mustHaveWorked(t, out, 10, "txn")
	if hits(out) == 0 {
		t.Errorf("the hold held no request: the run proves nothing")
	}
	for _, a := range []checkers.Anomaly{checkers.G1a, checkers.Duplicate, checkers.DuplicateDelivery, checkers.LostDelivery, checkers.Unseen, checkers.LostWrite} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("%d %s under delayed requests", n, a)
		}
	}
}
