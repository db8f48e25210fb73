package generators

import (
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Behavior:
//
// * Puts a Toxiproxy toxic on Params.Target's proxies (every broker's by
//   default) for the window: the clients' proxies, or with Params.Link
//   replication the brokers' replication proxies (local provider, a topic
//   with followers). A latency toxic counts as put once a probe through
//   each proxy came back late (probeTime): no node may be down or cut when
//   it starts, and the run's other steps wait for the probes.
// * Footprint: its proxy set; one proxy fault at a time on a set, as each
//   heal removes every toxic of it.
// * Drawn on every broker: 50-300 ms of latency, up to 50 ms of jitter,
//   on the clients' link or the replication link; --nemesis 100 ms ± 10 ms.

// KindLatency puts a Toxiproxy toxic on the target's proxies:
// Params.Toxic (latency by default) with Params.Delay (the latency, the
// timeout, the slow close's or the slicer's delay) and Params.Jitter;
// bandwidth reads Params.BitsPerSecond.
const KindLatency = "latency"

// Toxics a latency fault may put (Params.Toxic), as Toxiproxy names them.
func toxicKinds() []string {
	return []string{"latency", "timeout", "reset_peer", "slow_close", "bandwidth", "slicer"}
}

// Proxy fault defaults, for a scenario (or --nemesis) that names the kind
// alone: 100 ms of latency ± 10 ms, Kafka's own DegradedNetworkFaultSpec
// tests' figure.
const (
	DefaultLatency = 100 * time.Millisecond
	DefaultJitter  = 10 * time.Millisecond
)

// probeSlack is what one latency probe costs beyond the latency: a new
// connection and an ApiVersions round trip on two loaded cores.
const probeSlack = 50 * time.Millisecond

func latencyKind() Kind {
	return Kind{Name: KindLatency, Capability: cluster.CapProxy, Drawn: true,
		Doc: "Puts a Toxiproxy toxic on Params.Target's proxies (every broker's by default) for the window: Params.Toxic " +
			"(latency by default, or timeout, reset_peer, slow_close, bandwidth, slicer) with Params.Delay and Params.Jitter " +
			"(100 ms ± 10 ms when both are left out); bandwidth reads Params.BitsPerSecond. Params.Link replication puts it " +
			"on the brokers' replication proxies instead of the clients' (local provider).",
		Owns:  []string{"toxic", "jitter", "link", "bits-per-second"},
		check: checkLatency,
		footprint: func(f Fault, _ Scenario) Footprint {
			if f.onReplication() {
				return Footprint{Proxies: LinkReplication}
			}
			return Footprint{Proxies: LinkClients}
		},
		probe: func(f Fault, brokers int) time.Duration {
			if f.Params.Toxic != "" && f.Params.Toxic != "latency" {
				return 0 // the other toxics take no probe
			}
			latency, jitter := f.Params.Latency()
			return time.Duration(proxiedNodes(f, brokers)) * (latency + jitter + probeSlack)
		},
		draw: func(d drawer, label func(string) string, s Scenario) FaultParams {
			return FaultParams{Delay: drawMs(d, label, "latency-ms", 50, 300), Jitter: drawMs(d, label, "jitter-ms", 0, 50),
				Link: drawLink(d, label, s)}
		},
	}
}

// checkLatency checks the parameters latency reads.
func checkLatency(f Fault, field string, _ *Scenario) error {
	p := f.Params
	switch {
	case p.Jitter < 0:
		return bad(field+".params", "jitter %s: must not be negative", p.Jitter)
	case p.Toxic != "" && !slices.Contains(toxicKinds(), p.Toxic):
		return bad(field+".params.toxic", "%q is not one of %v", p.Toxic, toxicKinds())
	case p.Jitter > 0 && p.Jitter > p.Delay:
		return bad(field+".params.jitter", "%s is more than the delay %s", p.Jitter, p.Delay)
	case p.Toxic == "bandwidth" && p.BitsPerSecond < 8192:
		return bad(field+".params.bits-per-second", "%d, want >= 8192 (the bandwidth toxic counts whole KB/s)", p.BitsPerSecond)
	case p.Link != "" && !slices.Contains(latencyLinks(), p.Link):
		return bad(field+".params.link", "%q is not one of %v", p.Link, latencyLinks())
	}
	return nil
}

// Latency is the latency toxic's latency and jitter: Params.Delay and
// Params.Jitter, or DefaultLatency ± DefaultJitter when both are left out.
func (p FaultParams) Latency() (latency, jitter time.Duration) {
	if p.Delay == 0 && p.Jitter == 0 {
		return DefaultLatency, DefaultJitter
	}
	return p.Delay.D(), p.Jitter.D()
}

// drawLink picks the link of a latency fault: the clients' proxies, or
// the replication link where the provider has it and s's topic has
// followers whose fetches it would slow.
func drawLink(d drawer, label func(string) string, s Scenario) string {
	if !replicationLinkOn(s.Cluster.Provider) || s.Topic.ReplicationFactor < 2 {
		return ""
	}
	if d.pick(label("link"), latencyLinks()) == LinkReplication {
		return LinkReplication
	}
	return ""
}

// drawMs draws lo..hi milliseconds.
func drawMs(d drawer, label func(string) string, name string, lo, hi int) Duration {
	return Duration(time.Duration(d.intRange(label(name), lo, hi)) * time.Millisecond)
}
