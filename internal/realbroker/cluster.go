package realbroker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// Cluster is the part of a real-Kafka provider that is the same whatever
// runs its nodes: the nodes' ids and addresses, the admin client behind
// readiness, topics, leaders, health and fencing, the wait for a restarted
// node, and the bookkeeping of network cuts. A provider embeds it, so the
// hooks that take plain values (Leader, Healthy, Partition, ...) are its
// own; it adapts the ones that take cluster types, and supplies what
// differs through a Network and ProcessChecks.
type Cluster struct {
	prefix string
	checks ProcessChecks
	net    Network
	admin  *Admin
	ids    []int32
	seeds  []string

	proxies    *kproxy.Set      // the clients' proxies, when the run has them
	proxyAddrs map[int32]string // their addresses by node
	repl       *kproxy.Set      // the brokers' replication proxies, when the run has them

	applyMu sync.Mutex // serialises rewrites of the cuts
	mu      sync.Mutex // guards cuts
	cuts    [][2]int32
}

// Network is how a provider reaches its nodes' networks: what differs
// between providers besides the process checks.
type Network interface {
	// NoCuts says why this run cannot cut links or drop packets (nil: it
	// can); asked before any cut or loss is applied.
	NoCuts() error
	// PeerIP is the address node id (or ClientNode) has as seen by peers.
	PeerIP(id int32) string
	// ApplyBlocked makes node id's blocked set exactly blocked (addresses
	// from PeerIP) and reads it back.
	ApplyBlocked(ctx context.Context, id int32, blocked []string) error
	// ApplyLoss makes node id drop pct percent of the packets it receives
	// and reads it back.
	ApplyLoss(ctx context.Context, id int32, pct int) error
	// Link is node id's link, for slow links.
	Link(ctx context.Context, id int32) (Link, error)
}

// NewCluster is a provider's shared part; nothing happens until Place.
// prefix starts every error ("cluster/local"); checks say how the
// provider verifies what it does to a node's process.
func NewCluster(prefix string, checks ProcessChecks, net Network) *Cluster {
	return &Cluster{prefix: prefix, checks: checks, net: net}
}

// Placed is what the shared part needs of a provider's node.
type Placed interface {
	NodeID() int32
	ClientAddr() string // host:port
}

// Place records nodes as the run's (nil: none, after Stop).
func Place[N Placed](c *Cluster, nodes []N) {
	c.ids, c.seeds = make([]int32, len(nodes)), make([]string, len(nodes))
	for i, n := range nodes {
		c.ids[i], c.seeds[i] = n.NodeID(), n.ClientAddr()
	}
}

// Seeds are the brokers' client addresses.
func (c *Cluster) Seeds() []string { return slices.Clone(c.seeds) }

// Admin is the provider's own admin client (nil until Serve), for checks
// that look at the cluster past the hooks.
func (c *Cluster) Admin() *Admin { return c.admin }

// IDs lists the nodes' ids.
func (c *Cluster) IDs() []int32 { return slices.Clone(c.ids) }

// Bootstrap is every broker's client address: its proxy's when the run's
// clients go through proxies.
func (c *Cluster) Bootstrap() string { return strings.Join(c.clientSeeds(), ",") }

// Index is node id's position among the placed nodes.
func (c *Cluster) Index(id int32) (int, error) {
	if i := slices.Index(c.ids, id); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("%s: no node %d (nodes are %v)", c.prefix, id, c.ids)
}

// wrap prefixes err with the provider's name; nil stays nil.
func (c *Cluster) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", c.prefix, err)
}

// Serve connects the admin client and waits until the cluster really
// serves (Admin.WaitReady); exited describes how the i-th placed node
// ended ("" while it runs) and fails the wait at once, tails are the logs an
// error carries.
func (c *Cluster) Serve(ctx context.Context, limit time.Duration, tag string, exited func(i int) string, tails func() string) error {
	admin, err := NewAdmin(c.seeds)
	if err != nil {
		return err
	}
	c.admin = admin
	startupExit := func() error {
		for i, id := range c.ids {
			if why := exited(i); why != "" {
				return fmt.Errorf("node %d %s during startup", id, why)
			}
		}
		return nil
	}
	if err := admin.WaitReady(ctx, limit, len(c.ids), tag, startupExit); err != nil {
		return fmt.Errorf("%s: %w\n%s", c.prefix, err, tails())
	}
	return nil
}

// Close releases the admin client and the proxies; it is idempotent.
func (c *Cluster) Close() {
	c.StopProxies()
	c.StopReplicationProxies()
	if c.admin != nil {
		c.admin.Close()
		c.admin = nil
	}
}

// started is the error of a request made before Serve or after Close.
func (c *Cluster) started() error {
	if c.admin == nil {
		return fmt.Errorf("%s: not started", c.prefix)
	}
	return nil
}

// CreateTopicList creates topics and waits until every partition has a
// leader (the provider's CreateTopics converts cluster's topic specs).
func (c *Cluster) CreateTopicList(ctx context.Context, topics []cluster.TopicSpec) error {
	if err := c.started(); err != nil {
		return err
	}
	return c.wrap(c.admin.CreateTopics(ctx, len(c.ids), topics...))
}

// DeleteTopics deletes topics (cluster.TopicDeleter).
func (c *Cluster) DeleteTopics(ctx context.Context, topics ...string) error {
	if err := c.started(); err != nil {
		return err
	}
	return c.wrap(c.admin.DeleteTopics(ctx, topics...))
}

// Leader returns the node leading topic/partition, per the metadata the
// reachable brokers serve.
func (c *Cluster) Leader(ctx context.Context, topic string, partition int32) (int32, error) {
	if err := c.started(); err != nil {
		return -1, err
	}
	id, err := c.admin.Leader(ctx, topic, partition)
	return id, c.wrap(err)
}

// ActiveController returns the node leading the KRaft metadata quorum.
func (c *Cluster) ActiveController(ctx context.Context) (int32, error) {
	if err := c.started(); err != nil {
		return -1, err
	}
	id, err := c.admin.ActiveController(ctx)
	return id, c.wrap(err)
}

// Coordinator implements cluster.CoordinatorFinder (Admin.Coordinator).
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordinatorKind, key string) (int32, error) {
	if err := c.started(); err != nil {
		return -1, err
	}
	id, err := c.admin.Coordinator(ctx, kind, key)
	return id, c.wrap(err)
}

// Healthy implements cluster.HealthChecker (Admin.Healthy).
func (c *Cluster) Healthy(ctx context.Context) error {
	if err := c.started(); err != nil {
		return err
	}
	return c.wrap(c.admin.Healthy(ctx, c.ids))
}

// HealthChecked says what Healthy checks.
func (c *Cluster) HealthChecked() string { return HealthChecked }

// FenceClient removes the members of group whose client.id is clientID
// (Admin.FenceClient: an admin LeaveGroup, then a check that they are
// gone), so that closing a "crashed" consumer right after commits and
// leaves nothing: its requests are refused as UNKNOWN_MEMBER_ID. It makes
// the provider a client.MemberFencer.
func (c *Cluster) FenceClient(ctx context.Context, group, clientID string) error {
	if err := c.started(); err != nil {
		return fmt.Errorf("%s: fence: cluster not started", c.prefix)
	}
	return c.wrap(c.admin.FenceClient(ctx, group, clientID))
}

// restartListenTimeout bounds how long a restarted node may take to listen:
// a JVM started beside other brokers' JVMs and a test build on two cores
// has taken over a minute.
const restartListenTimeout = 90 * time.Second

// registerTimeout bounds a restarted broker's return to the cluster
// metadata after it listens: it replays the metadata log and is unfenced
// by the controller, which has taken tens of seconds on two loaded cores.
const registerTimeout = 90 * time.Second

// AwaitRestart waits until restarted node id's listener accepts
// connections and it is registered in the cluster metadata again,
// answering requests, unless a cut keeps the clients (then it cannot be
// seen listening) or its peers (then it cannot rejoin) from it until the
// heal. exited describes how the node ended ("" while it runs) and ends the
// wait at once, with tail, the end of its log.
func (c *Cluster) AwaitRestart(ctx context.Context, id int32, exited func() string, tail func() string) error {
	i, err := c.Index(id)
	if err != nil {
		return err
	}
	if err := c.started(); err != nil {
		return err
	}
	if ClientCut(c.Cuts(), id) {
		return nil
	}
	died := func() error {
		if why := exited(); why != "" {
			return fmt.Errorf("node %d %s after restart; log tail:\n%s", id, why, tail())
		}
		return nil
	}
	if err := WaitListening(ctx, c.seeds[i], restartListenTimeout, died); err != nil {
		return fmt.Errorf("%s: node %d: %w", c.prefix, id, tailed(err, tail))
	}
	if len(CutFrom(c.Cuts(), id)) > 0 {
		return nil
	}
	if err := c.admin.WaitRegistered(ctx, id, registerTimeout, died); err != nil {
		return fmt.Errorf("%s: node %d: %w", c.prefix, id, err)
	}
	return nil
}

// Cuts are the links cut now.
func (c *Cluster) Cuts() [][2]int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.cuts)
}

// Blocked lists the addresses node id is cut from now (Network.PeerIP).
func (c *Cluster) Blocked(id int32) []string {
	return c.PeerIPs(CutFrom(c.Cuts(), id))
}

// PeerIPs are the addresses of nodes ids (Network.PeerIP).
func (c *Cluster) PeerIPs(ids []int32) []string {
	var ips []string
	for _, peer := range ids {
		ips = append(ips, c.net.PeerIP(peer))
	}
	return ips
}

// Partition replaces every cut with components: nodes in different
// components cannot exchange packets. ClientNode may appear in one
// component; brokers outside it are then cut from the clients. Every
// broker must be in exactly one component.
func (c *Cluster) Partition(ctx context.Context, components [][]int32) error {
	return c.changeCuts(ctx, func([][2]int32) ([][2]int32, error) {
		return PartitionLinks(components, c.ids)
	})
}

// CutLinks adds cuts between pairs of nodes (ClientNode allowed), keeping
// existing ones: the way to build non-transitive topologies such as a
// bridge (1-2 and 2-3 connected, 1-3 cut) or clients cut from one broker.
func (c *Cluster) CutLinks(ctx context.Context, links [][2]int32) error {
	return c.changeCuts(ctx, func(cur [][2]int32) ([][2]int32, error) {
		return append(cur, links...), nil
	})
}

// SetCuts makes the cuts exactly links; nil heals them.
func (c *Cluster) SetCuts(ctx context.Context, links [][2]int32) error {
	return c.changeCuts(ctx, func([][2]int32) ([][2]int32, error) { return links, nil })
}

// changeCuts records the cuts next makes of the current ones, then makes
// every node's blocked set exactly the peers it is cut from (a node's
// ApplyBlocked may apply them later, e.g. once it runs again). They are
// recorded before they are applied, so that a node restarted meanwhile
// gets them too, and a failed apply is healed by the next SetCuts.
func (c *Cluster) changeCuts(ctx context.Context, next func(cur [][2]int32) ([][2]int32, error)) error {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	links, err := next(c.Cuts())
	if err == nil {
		err = CheckLinks(links, c.ids)
	}
	if err != nil {
		return c.wrap(err)
	}
	if err := c.RefuseCutsThroughProxies(links); err != nil {
		return err
	}
	if err := c.net.NoCuts(); err != nil {
		return err
	}
	c.mu.Lock()
	c.cuts = links
	c.mu.Unlock()
	var errs []error
	for _, id := range c.ids {
		errs = append(errs, c.net.ApplyBlocked(ctx, id, c.PeerIPs(CutFrom(links, id))))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: setting cuts: %w", c.prefix, err)
	}
	return nil
}

// PacketLoss drops pct percent (0..100) of the packets node id receives,
// at random (nft numgen); 0 removes the loss. Applies to peers and clients.
// Its input is checked before the network is asked, as a cut's is.
func (c *Cluster) PacketLoss(ctx context.Context, id int32, pct int) error {
	if pct < 0 || pct > 100 {
		return fmt.Errorf("%s: packet loss %d%%, want 0..100", c.prefix, pct)
	}
	if _, err := c.Index(id); err != nil {
		return err
	}
	if err := c.net.NoCuts(); err != nil {
		return err
	}
	if err := c.net.ApplyLoss(ctx, id, pct); err != nil {
		return fmt.Errorf("%s: packet loss on node %d: %w", c.prefix, id, err)
	}
	return nil
}
