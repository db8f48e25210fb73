package generators

import (
	"slices"
	"time"
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

// isProxyKind reports whether kind acts on the clients' proxies.
func isProxyKind(kind string) bool { return kind == KindLatency || kind == KindDelayedRequests }

// Proxied reports whether s has a fault that needs the clients' proxies.
func (s Scenario) Proxied() bool {
	return slices.ContainsFunc(s.Nemesis, func(f Fault) bool { return isProxyKind(f.Kind) })
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
