package generators

import (
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// Fault kinds on the proxies between the clients and the brokers (real
// brokers only: the run's spec then routes the clients through a proxy per
// broker). They take Params.Target like the other real-broker kinds.
const (
	// KindLatency puts a Toxiproxy toxic on the target's proxies:
	// Params.Toxic (latency by default) with Params.Delay (the latency,
	// the timeout, the slow close's or the slicer's delay) and
	// Params.Jitter; bandwidth reads Params.BitsPerSecond.
	KindLatency = "latency"
	// KindDelayedRequests holds the Params.Requests of clients whose
	// client.id starts with Params.Client for Params.Delay each (at most
	// Params.Count of them; 0: every one), letting the clients' other
	// connections through: an order-breaking delay.
	KindDelayedRequests = "delayed-requests"
)

// Toxics a latency fault may put (Params.Toxic), as Toxiproxy names them.
var toxicKinds = []string{"latency", "timeout", "reset_peer", "slow_close", "bandwidth", "slicer"}

// Requests a delayed-requests fault may hold (Params.Requests).
var holdRequests = []string{"produce", "commit", "txn-offset-commit", "end-txn", "add-partitions", "add-offsets"}

// Proxy fault defaults, for a scenario (or --nemesis) that names the kind
// alone: 100 ms of latency ± 10 ms, Kafka's own DegradedNetworkFaultSpec
// tests' figure; produce and EndTxn requests held 2 s.
const (
	DefaultLatency = 100 * time.Millisecond
	DefaultJitter  = 10 * time.Millisecond
	DefaultHold    = 2 * time.Second
)

// DefaultHoldRequests are the requests a delayed-requests fault holds
// when it names none: the late arrivals of KAFKA-17754.
func DefaultHoldRequests() []string { return []string{"produce", "end-txn"} }

// proxyKinds are drawn on every provider that starts its own brokers: each
// fronts them with a proxy per broker when a scenario has one of these
// (Scenario.Proxied; the embedded cluster through kfake's listeners).
var proxyKinds = []string{KindLatency, KindDelayedRequests}

// Latency is the latency toxic's latency and jitter: Params.Delay and
// Params.Jitter, or DefaultLatency ± DefaultJitter when both are left out.
func (p FaultParams) Latency() (latency, jitter time.Duration) {
	if p.Delay == 0 && p.Jitter == 0 {
		return DefaultLatency, DefaultJitter
	}
	return p.Delay.D(), p.Jitter.D()
}

// HeldRequests is what a delayed-requests fault holds: Params.Requests, or
// DefaultHoldRequests when it names none.
func (p FaultParams) HeldRequests() []string {
	if len(p.Requests) == 0 {
		return DefaultHoldRequests()
	}
	return p.Requests
}

// HoldFor is how long a delayed-requests fault holds each request:
// Params.Delay, or DefaultHold.
func (p FaultParams) HoldFor() time.Duration {
	if p.Delay == 0 {
		return DefaultHold
	}
	return p.Delay.D()
}

// probeSlack is what one latency probe costs beyond the latency: a new
// connection and an ApiVersions round trip on two loaded cores.
const probeSlack = 50 * time.Millisecond

// probeTime is how long a latency fault's start takes on a cluster of
// brokers: its toxic counts as put once a probe through each of its
// proxies, one after another, came back late (nemesis.Toxic). A clock
// skew's start likewise waits for each of its brokers' clocks to show
// the move (clockShows each). The runner plays the next step only after
// it, and the probes must be back before the run ends. Other faults, the
// other toxics included, take no probe.
func (f Fault) probeTime(brokers int) time.Duration {
	if f.Kind == KindClockSkew {
		return time.Duration(nodesTaken(f, brokers, 0)) * clockShows
	}
	if f.Kind != KindLatency || (f.Params.Toxic != "" && f.Params.Toxic != "latency") {
		return 0
	}
	latency, jitter := f.Params.Latency()
	return time.Duration(proxiedNodes(f, brokers)) * (latency + jitter + probeSlack)
}

// proxiedNodes is how many brokers' proxies a proxy fault acts on: every
// one unless Params.Target names fewer.
func proxiedNodes(f Fault, brokers int) int {
	if f.Params.Target == "" {
		return brokers
	}
	return min(brokers, nodesTaken(f, brokers, 0))
}

// proxyAvailable checks what proxy fault i needs of the other faults and of
// the clients: one proxy fault at a time on the same proxies (each heal
// removes every toxic of its set: the clients' or the replication link's);
// no node down or cut when a latency toxic's probes go out; and a hold on
// requests that some client of the workload sends.
func proxyAvailable(s Scenario, i int, field string) error {
	f := s.Nemesis[i]
	if !isProxyKind(f.Kind) {
		return nil
	}
	for j, o := range s.Nemesis {
		switch {
		case j == i:
		case isProxyKind(o.Kind) && o.onReplication() == f.onReplication() && f.Start < o.End() && o.Start < f.End():
			return bad(field+".start", "%s (%v-%v) overlaps nemesis[%d] %s (%v-%v): one proxy fault at a time on the same proxies, as each heal removes every toxic",
				f.Kind, f.Start, f.End(), j, o.Kind, o.Start, o.End())
		case f.probeTime(s.Cluster.Brokers) > 0 && cutsNodes(o.Kind) && o.Start <= f.Start && f.Start < o.End():
			return bad(field+".start", "%s starts at %v inside nemesis[%d] %s (%v-%v): its toxic is verified by a probe through each proxy, which a node down or cut off cannot answer",
				f.Kind, f.Start, j, o.Kind, o.Start, o.End())
		}
	}
	if f.Kind == KindDelayedRequests {
		return holdWorkload(s, f, field)
	}
	return nil
}

// cutsNodes reports whether a fault of kind takes brokers down (a power
// loss, a disk fault that shuts one down and a removed broker too),
// freezes them or cuts them off the network.
func cutsNodes(kind string) bool {
	switch KindCapability(kind) {
	case "kill", "pause", "partition":
		return true
	}
	return needOf(kind).takesDown
}

// holdWorkload checks that some client of s sends a request f holds:
// producers, copiers and txn queues produce; group consumers that commit
// themselves and at-least-once copiers send OffsetCommit; transactional
// copiers send every transaction request, txn queues those of a
// transaction without offsets (AddPartitionsToTxn, EndTxn).
func holdWorkload(s Scenario, f Fault, field string) error {
	w := s.Workload
	txnCopiers := w.Copiers > 0 && w.CopyMode() == CopyTransactional
	committers := (w.Consumers > 0 && w.Mode == ModeGroup && s.Consumer.CommitStrategy != model.CommitTransactional) ||
		(w.Copiers > 0 && !txnCopiers)
	for _, r := range f.Params.HeldRequests() {
		switch {
		case r == "produce" && w.Producers+w.Copiers+w.TxnQueues > 0, r == "commit" && committers,
			(r == "end-txn" || r == "add-partitions") && sendsEndTxn(w),
			(r == "txn-offset-commit" || r == "add-offsets") && txnCopiers:
			return nil
		}
	}
	return bad(field+".params.requests", "%s holds %v, which no client of the workload sends (%d producers, %d copiers in mode %s, %d txn queues, %d consumers in mode %s committing %s)",
		f.Kind, f.Params.HeldRequests(), w.Producers, w.Copiers, w.CopyMode(), w.TxnQueues, w.Consumers, w.Mode, s.Consumer.CommitStrategy)
}

// sendsEndTxn reports whether some client of w ends transactions:
// transactional copiers or txn queues.
func sendsEndTxn(w Workload) bool {
	return w.TxnQueues > 0 || (w.Copiers > 0 && w.CopyMode() == CopyTransactional)
}

// isProxyKind reports whether kind acts on the clients' proxies.
func isProxyKind(kind string) bool { return kind == KindLatency || kind == KindDelayedRequests }

// Proxied reports whether s has a fault that needs the clients' proxies
// (a latency fault on the replication link needs the brokers' instead).
func (s Scenario) Proxied() bool {
	return slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return isProxyKind(f.Kind) && !f.onReplication() })
}

// validateProxy checks the parameters proxy faults read, and that other
// kinds leave them alone.
func (f Fault) validateProxy(field string) error {
	p := f.Params
	if !isProxyKind(f.Kind) {
		if p.Toxic != "" || p.Jitter != 0 || len(p.Requests) > 0 || p.Client != "" || p.Count != 0 {
			return bad(field+".params", "toxic, jitter, requests, client and count are read by latency and delayed-requests only (kind %s)", f.Kind)
		}
		return nil
	}
	switch {
	case p.Jitter < 0 || p.Count < 0:
		return bad(field+".params", "jitter %s, count %d: must not be negative", p.Jitter, p.Count)
	case f.Kind == KindLatency && p.Toxic != "" && !slices.Contains(toxicKinds, p.Toxic):
		return bad(field+".params.toxic", "%q is not one of %v", p.Toxic, toxicKinds)
	case f.Kind == KindLatency && (len(p.Requests) > 0 || p.Client != "" || p.Count != 0):
		return bad(field+".params", "requests, client and count are read by delayed-requests only")
	case f.Kind == KindDelayedRequests && (p.Toxic != "" || p.Jitter != 0):
		return bad(field+".params", "toxic and jitter are read by latency only")
	case p.Jitter > 0 && p.Jitter > p.Delay:
		return bad(field+".params.jitter", "%s is more than the delay %s", p.Jitter, p.Delay)
	}
	for i, r := range p.Requests {
		if !slices.Contains(holdRequests, r) {
			return bad(field+".params.requests", "[%d] %q is not one of %v", i, r, holdRequests)
		}
	}
	return nil
}
