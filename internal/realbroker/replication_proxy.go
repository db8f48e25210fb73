package realbroker

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// ReplicationListener is the broker listener the brokers replicate over
// (inter.broker.listener.name) when a run routes their own traffic through
// proxies (cluster.Spec.ReplicationProxied): each node advertises it at its
// proxy, so a follower's fetches from a leader, and every other request one
// broker sends another, pass the harness.
const ReplicationListener = "REPLICATION"

// replicationProxyName is node id's replication proxy.
func replicationProxyName(id int32) string { return fmt.Sprintf("r%d", id) }

// StartReplicationProxies puts a proxy on host, the harness's address as
// the nodes reach it, in front of each node's replication listener
// (upstreams: node id -> host:port), and returns their addresses by node
// for the nodes' advertised REPLICATION listeners. The proxies are a Set
// of their own: a heal of the clients' toxics leaves them alone, and the
// other way round. Like the clients' proxies they dial upstream only when
// a peer connects, so they start before their brokers.
func (c *Cluster) StartReplicationProxies(host string, upstreams map[int32]string) (map[int32]string, error) {
	if c.repl != nil {
		return nil, fmt.Errorf("%s: replication proxies already started", c.prefix)
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		return nil, fmt.Errorf("%s: replication proxies: listen host %q, want the one address the nodes reach the harness at", c.prefix, host)
	}
	set, addrs, err := c.startSet(host, upstreams, replicationProxyName)
	if err != nil {
		return nil, err
	}
	c.repl = set
	return addrs, nil
}

// StopReplicationProxies closes the replication proxies and their
// connections; idempotent.
func (c *Cluster) StopReplicationProxies() {
	if c.repl != nil {
		c.repl.Close()
		c.repl = nil
	}
}

// ReplicationProxied reports whether the brokers replicate through proxies.
func (c *Cluster) ReplicationProxied() bool { return c.repl != nil }

func (c *Cluster) replicationSet() (*kproxy.Set, error) {
	if c.repl == nil {
		return nil, fmt.Errorf("%s: this run's brokers replicate directly (a latency fault with link replication, or cluster.replication-proxies, asks for proxies)", c.prefix)
	}
	return c.repl, nil
}

// AddReplicationToxic puts toxic t, called name, on node id's replication
// proxy and verifies it (kproxy.Set.ApplyVerified: listed back; a latency
// toxic also delays a probe through the proxy). The toxic acts on what
// node id's peers send it (upstream) or what it answers (downstream).
func (c *Cluster) AddReplicationToxic(ctx context.Context, id int32, name string, t kproxy.Toxic) error {
	set, err := c.replicationSet()
	if err != nil {
		return err
	}
	return c.wrap(set.ApplyVerified(ctx, replicationProxyName(id), name, t))
}

// HealReplicationToxics removes every toxic of every replication proxy and
// reads the lists back.
func (c *Cluster) HealReplicationToxics(ctx context.Context) error {
	if c.repl == nil {
		return nil
	}
	return c.wrap(c.repl.Heal(ctx))
}

// ErrCutsThroughProxies is why a run whose brokers replicate through
// proxies refuses cuts: a cut drops a peer's address inside a node's
// namespace, but peers reach each other at the harness's proxy, so the cut
// would leave their replication up and hold only half of what it says.
var ErrCutsThroughProxies = errors.New("the brokers replicate through the harness's proxies, so a cut by peer address would not cut them: partitions, bridges, isolations and replication cuts are refused on such a run")

// RefuseCutsThroughProxies refuses cuts (links; none heals, always
// allowed) on a run whose brokers replicate through proxies: SetCuts's and
// a provider's own (a replication cut by port).
func (c *Cluster) RefuseCutsThroughProxies(links [][2]int32) error {
	if len(links) > 0 && c.repl != nil {
		return c.wrap(ErrCutsThroughProxies)
	}
	return nil
}
