package kafkachaos_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// BenchmarkLocalProxy measures what the client proxies (internal/kproxy)
// cost on real brokers, and what 100 ms of injected client latency does:
// one local cluster (three Kafka JVMs, Spec.Proxied, so each broker has a
// direct listener and one advertised at a harness proxy), produced to by
// concurrent acks=all idempotent producers of 1 KiB records, one sync
// produce per op,
//
//   - via=direct: seeded with the brokers' own listeners;
//   - via=proxied: seeded with the proxies, no toxic on;
//   - via=latency100ms: the proxies with a 100 ms latency toxic on every
//     upstream (client to broker), as the latency fault adds it.
//
// The sides take turns in rounds on the same cluster, so drift on a shared
// machine falls on all of them; each reports p50-ms, p99-ms and rec/s.
// `benchstat -col /via -ignore /round` gives the ratios (the bar:
// proxied >= 0.9 of direct); the log ends with the ratios of the medians
// and the p99 of every round's latencies pooled. Real Kafka only:
//
//	KAFKACHAOS_CLUSTER=local go test -run '^$' -bench LocalProxy -benchtime 2s .
func BenchmarkLocalProxy(b *testing.B) {
	requireReal(b, "local")
	p := startProxiedLocal(b)
	clients := map[string]*kgo.Client{"direct": benchProducer(b, p.Seeds()),
		"proxied": benchProducer(b, strings.Split(p.Bootstrap(), ","))}
	clients["latency100ms"] = clients["proxied"]
	for _, via := range []string{"direct", "proxied"} {
		warmUp(b, clients[via])
	}
	results := map[string][]produced{}
	for round := range benchRounds {
		order := []string{"direct", "proxied", "latency100ms"}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, via := range order {
			if results[via] == nil {
				results[via] = make([]produced, benchRounds)
			}
			if via == "latency100ms" {
				addLatency(b, p, 100*time.Millisecond)
			}
			b.Run(fmt.Sprintf("round=%d/via=%s", round, via), func(b *testing.B) {
				// The testing package calls this again with a larger b.N
				// until it runs long enough: the last call is the round's.
				results[via][round] = produceParallel(b, clients[via])
			})
			if err := p.HealToxics(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	}
	logRatios(b, results)
}

// benchRounds is how many turns each side takes.
const benchRounds = 6

func startProxiedLocal(b *testing.B) *local.Provider {
	p := local.New(local.Options{Logf: b.Logf})
	b.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			b.Errorf("stopping the cluster: %v", err)
		}
	})
	spec := cluster.Spec{RunID: "bench-local-proxy", Proxied: true,
		Topics: []cluster.TopicSpec{{Name: "bench", Partitions: 3, MinInsyncReplicas: 2}}}
	if err := p.Start(b.Context(), spec); err != nil {
		b.Fatal(err)
	}
	return p
}

// benchProducer is an acks=all idempotent producer to the topic bench that
// sends each record as soon as it has it (no linger: an op's latency is a
// request's), every delivery bounded.
func benchProducer(b *testing.B, seeds []string) *kgo.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("bench"), kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(30*time.Second))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// warmUp produces for a few seconds untimed, so that neither side pays
// for the brokers' JIT or the client's first metadata and connections (a
// first round without it ran at half the rate of the next).
func warmUp(b *testing.B, cl *kgo.Client) {
	recs := make([]*kgo.Record, 100)
	for began := time.Now(); time.Since(began) < warmUpFor; {
		for i := range recs {
			recs[i] = &kgo.Record{Value: benchValue()}
		}
		if err := syncProduce(b.Context(), cl, recs...); err != nil {
			b.Fatal(err)
		}
	}
}

const warmUpFor = 5 * time.Second

func benchValue() []byte {
	v := make([]byte, 1024)
	rand.Read(v)
	return v
}

func syncProduce(ctx context.Context, cl *kgo.Client, recs ...*kgo.Record) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

// addLatency puts latency on the upstream of every broker's proxy.
func addLatency(b *testing.B, p *local.Provider, latency time.Duration) {
	for _, n := range p.Nodes() {
		t := kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream", Latency: latency}
		if err := p.AddToxic(b.Context(), n.ID, "bench-latency", t); err != nil {
			b.Fatal(err)
		}
	}
}

// produced is one timed sub-benchmark: how many records in how long, and each
// one's produce latency.
type produced struct {
	n         int
	elapsed   time.Duration
	latencies []time.Duration
}

// produceParallel produces b.N records of 1 KiB from 16 goroutines, one
// sync produce each at a time, and reports the latencies and the rate.
func produceParallel(b *testing.B, cl *kgo.Client) produced {
	var mu sync.Mutex
	r := produced{n: b.N}
	value := benchValue()
	b.SetBytes(int64(len(value)))
	b.SetParallelism(8)
	began := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if err := syncProduce(context.Background(), cl, &kgo.Record{Value: value}); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		r.latencies = append(r.latencies, mine...)
		mu.Unlock()
	})
	r.elapsed = time.Since(began)
	b.ReportMetric(ms(quantile(r.latencies, 0.50)), "p50-ms")
	b.ReportMetric(ms(quantile(r.latencies, 0.99)), "p99-ms")
	b.ReportMetric(r.rate(), "rec/s")
	return r
}

func (r produced) rate() float64 { return float64(r.n) / r.elapsed.Seconds() }

// medianRate is the median of the rounds' rates (rounds that did not run
// left out).
func medianRate(rounds []produced) float64 {
	var rates []float64
	for _, r := range rounds {
		if r.n > 0 {
			rates = append(rates, r.rate())
		}
	}
	if len(rates) == 0 {
		return 0
	}
	slices.Sort(rates)
	mid := len(rates) / 2
	if len(rates)%2 == 0 {
		return (rates[mid-1] + rates[mid]) / 2
	}
	return rates[mid]
}

func pooled(rounds []produced) []time.Duration {
	var all []time.Duration
	for _, r := range rounds {
		all = append(all, r.latencies...)
	}
	return all
}

// logRatios logs each side's median rate over the rounds and its pooled
// latencies, and the rates' ratios to direct.
func logRatios(b *testing.B, results map[string][]produced) {
	direct := medianRate(results["direct"])
	for _, via := range []string{"direct", "proxied", "latency100ms"} {
		rate, all := medianRate(results[via]), pooled(results[via])
		b.Logf("PROXY COST via=%s: %.0f rec/s (median of %d rounds, %.2f of direct); latency over %d records: p50 %.1f ms, p99 %.1f ms",
			via, rate, benchRounds, rate/direct, len(all), ms(quantile(all, .5)), ms(quantile(all, .99)))
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
