package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// real makes the nemesis fault of a kind that needs real brokers (the
// kinds of generators/real_kinds.go, and kills or pauses aimed at a
// Params.Target: the leader, the controller, a majority...), which
// generators spells as nemesis.Real does.
func (c ClusterFaults) real(f generators.Fault) (nemesis.Fault, error) {
	return c.realAs(f, f.Kind)
}

// realAs makes f as nemesis.Real's kind. Targets resolve against key 0's
// partition, with the run's seed.
func (c ClusterFaults) realAs(f generators.Fault, kind string) (nemesis.Fault, error) {
	spec := nemesis.RealSpec{Kind: kind, Target: nemesis.Target(f.Params.Target), Percent: f.Params.Percent,
		BitsPerSecond: f.Params.BitsPerSecond, Settle: f.Params.Delay.D()}
	if _, ok := c.Scenario.Keys.Map["0"]; !ok {
		return nil, fmt.Errorf("%s: the scenario has no key 0 whose leader a target could name", f.Kind)
	}
	return nemesis.Real(c.keyTargeting(), spec)
}

// latency puts a toxic on the clients' proxies (cluster.Proxier), or on
// link replication the brokers' (replicationFault), from f's params, with
// the generators' defaults for what f leaves out.
func (c ClusterFaults) latency(f generators.Fault) (nemesis.Fault, error) {
	tg, target := c.keyTargeting(), targetOf(f, nemesis.TargetAll)
	if f.Params.Link == generators.LinkReplication {
		return c.replicationFault(f, tg, target)
	}
	px, err := hook[cluster.Proxier](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	return nemesis.Toxic(px, tg, target, toxicOf(f.Params)), nil
}

// delayedRequests holds the requests f names on the clients' proxies.
func (c ClusterFaults) delayedRequests(f generators.Fault) (nemesis.Fault, error) {
	px, err := hook[cluster.Proxier](c.Provider, f.Kind)
	if err != nil {
		return nil, err
	}
	return nemesis.DelayedRequests(px, c.keyTargeting(), targetOf(f, nemesis.TargetAll), holdOf(f.Params)), nil
}

// toxicOf is the latency fault's toxic: its latency and jitter
// (Params.Latency), timeout or delay from Params.Delay, its rate from
// Params.BitsPerSecond.
func toxicOf(p generators.FaultParams) kproxy.Toxic {
	t := kproxy.Toxic{Kind: p.Toxic, Stream: "upstream"}
	if t.Kind == "" {
		t.Kind = kproxy.Latency
	}
	switch t.Kind {
	case kproxy.Latency:
		t.Latency, t.Jitter = p.Latency()
	case kproxy.Timeout, kproxy.ResetPeer:
		t.Timeout = p.Delay.D()
	case kproxy.SlowClose, kproxy.Slicer:
		t.Delay = p.Delay.D()
	case kproxy.Bandwidth:
		t.RateKBps = p.BitsPerSecond / 8192
	}
	if t.Kind == kproxy.Slicer {
		t.AverageSize, t.SizeVariation = 64, 32
	}
	return t
}

// holdRequests are the API keys behind generators' request names.
var holdRequests = map[string][]int16{
	"produce":           {kproxy.APIProduce},
	"commit":            {kproxy.APIOffsetCommit},
	"txn-offset-commit": {kproxy.APITxnOffsetCommit},
	"end-txn":           {kproxy.APIEndTxn},
	"add-partitions":    {kproxy.APIAddPartitions},
	"add-offsets":       {kproxy.APIAddOffsetsToTxn},
}

// holdOf is the delayed-requests fault's hold.
func holdOf(p generators.FaultParams) kproxy.Hold {
	h := kproxy.Hold{ClientID: p.Client, For: p.HoldFor(), Count: int64(p.Count)}
	for _, r := range p.HeldRequests() {
		h.APIKeys = append(h.APIKeys, holdRequests[r]...)
	}
	return h
}
