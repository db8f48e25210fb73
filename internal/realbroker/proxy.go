package realbroker

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// ProxiedListener is the broker listener that clients reach through a
// proxy when a run asks for one (cluster.Spec.Proxied).
const ProxiedListener = "CLIENT"

// proxyName is node id's proxy in the run's kproxy.Set.
func proxyName(id int32) string { return fmt.Sprintf("n%d", id) }

// StartProxies puts a proxy on the harness's loopback in front of each
// node's proxied listener (upstreams: node id -> host:port) and returns
// the proxies' addresses by node, for the nodes' advertised listeners.
// From then on Bootstrap names the proxies: the run's clients connect
// through them, while the admin client and the brokers' replication keep
// the direct listener (the latter has proxies of its own only through
// StartReplicationProxies). A proxy dials its upstream only when a client
// connects, so proxies start before their brokers.
func (c *Cluster) StartProxies(upstreams map[int32]string) (map[int32]string, error) {
	if c.proxies != nil {
		return nil, fmt.Errorf("%s: proxies already started", c.prefix)
	}
	set, addrs, err := c.startSet("127.0.0.1", upstreams, proxyName)
	if err != nil {
		return nil, err
	}
	c.proxies, c.proxyAddrs = set, addrs
	return addrs, nil
}

// startSet puts a proxy called name(id) on host (port 0: a free one) in
// front of each node's upstream, all in one new Set; on error it closes
// the ones it started.
func (c *Cluster) startSet(host string, upstreams map[int32]string, name func(int32) string) (*kproxy.Set, map[int32]string, error) {
	set := kproxy.New()
	addrs := make(map[int32]string, len(upstreams))
	for _, id := range c.ids {
		up, ok := upstreams[id]
		if !ok {
			set.Close()
			return nil, nil, fmt.Errorf("%s: no proxied listener for node %d", c.prefix, id)
		}
		addr, err := set.Add(name(id), net.JoinHostPort(host, "0"), up)
		if err != nil {
			set.Close()
			return nil, nil, c.wrap(err)
		}
		addrs[id] = addr
	}
	return set, addrs, nil
}

// StopProxies closes the proxies and their connections; idempotent.
func (c *Cluster) StopProxies() {
	if c.proxies != nil {
		c.proxies.Close()
		c.proxies, c.proxyAddrs = nil, nil
	}
}

// clientSeeds are the addresses clients bootstrap from: the proxies when
// the run has them.
func (c *Cluster) clientSeeds() []string {
	if c.proxyAddrs == nil {
		return c.seeds
	}
	out := make([]string, len(c.ids))
	for i, id := range c.ids {
		out[i] = c.proxyAddrs[id]
	}
	return out
}

func (c *Cluster) proxySet() (*kproxy.Set, error) {
	if c.proxies == nil {
		return nil, fmt.Errorf("%s: this run has no client proxies (a scenario with a latency or delayed-requests fault asks for them)", c.prefix)
	}
	return c.proxies, nil
}

// Proxied reports whether the run's clients go through proxies.
func (c *Cluster) Proxied() bool { return c.proxies != nil }

// LogRequests logs the requests through the clients' proxies to the file
// at path (kproxy.Set.LogRequests).
func (c *Cluster) LogRequests(path string) (func() error, error) {
	set, err := c.proxySet()
	if err != nil {
		return nil, err
	}
	closeLog, err := set.LogRequests(path)
	return closeLog, c.wrap(err)
}

// AddToxic puts toxic t, called name, on node id's proxy and verifies it
// (kproxy.Set.ApplyVerified).
func (c *Cluster) AddToxic(ctx context.Context, id int32, name string, t kproxy.Toxic) error {
	set, err := c.proxySet()
	if err != nil {
		return err
	}
	return c.wrap(set.ApplyVerified(ctx, proxyName(id), name, t))
}

// HealToxics removes every toxic of every proxy and reads the lists back.
func (c *Cluster) HealToxics(ctx context.Context) error {
	if c.proxies == nil {
		return nil
	}
	return c.wrap(c.proxies.Heal(ctx))
}

// HeldBy is how many requests hold toxic name on node id's proxy held.
func (c *Cluster) HeldBy(id int32, name string) (int64, error) {
	set, err := c.proxySet()
	if err != nil {
		return 0, err
	}
	n, err := set.HeldBy(proxyName(id), name)
	return n, c.wrap(err)
}

// ProbeProxy times one ApiVersions round trip through node id's proxy.
func (c *Cluster) ProbeProxy(ctx context.Context, id int32) (time.Duration, error) {
	set, err := c.proxySet()
	if err != nil {
		return 0, err
	}
	d, err := set.ProbeVia(ctx, proxyName(id))
	return d, c.wrap(err)
}
