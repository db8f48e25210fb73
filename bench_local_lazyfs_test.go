package kafkachaos_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// BenchmarkLocalLazyfs measures what internal/lazyfs costs a broker: two
// local clusters of three Kafka JVMs, one writing its data directly
// (via=direct) and one through lazyfs (via=lazyfs, Spec.LazyDisks, as a
// run with a power-loss or disk fault has), produced to by 16 concurrent
// acks=all idempotent producers of 1 KiB records, one sync produce per op.
// The sides take turns in rounds, so drift on a shared machine falls on
// both; each reports p50-ms, p99-ms and rec/s, and the log ends with the
// ratio of the median rates. Real Kafka only:
//
//	KAFKACHAOS_CLUSTER=local go test -run '^$' -bench LocalLazyfs -benchtime 2s .
func BenchmarkLocalLazyfs(b *testing.B) {
	requireReal(b, "local")
	clients := map[string]*kgo.Client{
		"direct": benchProducer(b, startBenchLocal(b, false).Seeds()),
		"lazyfs": benchProducer(b, startBenchLocal(b, true).Seeds()),
	}
	for _, cl := range clients {
		warmUp(b, cl)
	}
	results := map[string][]produced{}
	for round := range lazyfsRounds {
		order := []string{"direct", "lazyfs"}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, via := range order {
			if results[via] == nil {
				results[via] = make([]produced, lazyfsRounds)
			}
			b.Run(fmt.Sprintf("round=%d/via=%s", round, via), func(b *testing.B) {
				results[via][round] = produceParallel(b, clients[via])
			})
		}
	}
	direct := medianRate(results["direct"])
	for _, via := range []string{"direct", "lazyfs"} {
		rate := medianRate(results[via])
		b.Logf("LAZYFS COST via=%s: %.0f rec/s (median of %d rounds, %.2f of direct)", via, rate, lazyfsRounds, rate/direct)
	}
}

// lazyfsRounds is how many turns each side takes.
const lazyfsRounds = 4

// startBenchLocal starts a local cluster with the topic bench, its data on
// lazyfs when lazy is set.
func startBenchLocal(b *testing.B, lazy bool) *local.Provider {
	p := local.New(local.Options{Logf: b.Logf})
	b.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			b.Errorf("stopping the cluster: %v", err)
		}
	})
	spec := cluster.Spec{RunID: fmt.Sprintf("bench-local-lazyfs-%v", lazy), LazyDisks: lazy,
		Topics: []cluster.TopicSpec{{Name: "bench", Partitions: 3, MinInsyncReplicas: 2}}}
	if err := p.Start(b.Context(), spec); err != nil {
		b.Fatal(err)
	}
	return p
}
