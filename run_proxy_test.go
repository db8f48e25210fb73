package kafkachaos_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
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

// TestChaosRequestLog: a transactional copy whose clients go through the
// proxies leaves requests.jsonl.gz in its run directory, holding the run's
// transactional Produce requests, each batch with the producer id an
// InitProducerID response gave, and the commits answered without error,
// no more than the transactions that completed ok (an empty transaction
// commits without a request).
func TestChaosRequestLog(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("request-log", 2*time.Second).TransactionalCopy(2, 0.3, 300)
	s.Cluster.ClientProxies = true
	skipUninjectable(t, s)
	out, err := runner.Run(context.Background(), s, runner.Options{RunsDir: t.TempDir(), TestName: t.Name(), Keep: true, Replay: replay})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := kproxy.ReadLog(filepath.Join(out.Dir, report.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	pids := map[int64]bool{}
	var produces, commits int64
	for _, x := range kproxy.Exchanges(entries) {
		switch r := x.Request; {
		case r.API == "InitProducerID" && x.Response != nil && x.Response.PID != nil:
			pids[*x.Response.PID] = true
		case r.API == "EndTxn" && r.Commit != nil && *r.Commit && x.Response != nil && x.Response.Error == "":
			commits++
			if !pids[*r.PID] {
				t.Errorf("EndTxn of %s: producer id %d, not one InitProducerID gave (%v)", r.Txn, *r.PID, pids)
			}
		case r.API == "Produce" && r.Txn != "":
			produces++
			for _, p := range r.Partitions {
				if p.PID == nil || !pids[*p.PID] || p.Transactional == nil || !*p.Transactional {
					t.Errorf("produce of %s to %s[%d]: producer id %v (InitProducerID gave %v), transactional %v",
						r.Txn, p.Topic, p.Partition, p.PID, pids, p.Transactional)
				}
			}
		}
	}
	ok := out.Stats.OpsByType["txn ok"]
	if produces == 0 || commits == 0 || commits > ok {
		t.Errorf("%d transactional produce requests and %d commits answered without error in the log for %d txn ops ok (%d log entries)",
			produces, commits, ok, len(entries))
	}
}
