package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

var _ cluster.BrokerAdder = (*Provider)(nil) // a broker-only JVM in a namespace of its own

// guests are the brokers added to the running cluster (AddBroker), apart
// from its nodes: the faults that pick nodes, the health checks and the
// cuts know the cluster's nodes alone.
type guests struct {
	mu    sync.Mutex
	nodes []*node
}

// AddBroker places a new node (the next id after every node's and
// guest's: its own namespace on the run's bridge, its directory in the
// run's), writes a broker-only configuration from node 1's (the
// cluster's defaults, overrides and quorum), formats its storage with the
// cluster's id (node 1's meta.properties), starts it and waits until the
// cluster lists it unfenced. In a run that moves clocks it gets a clock of
// its own, at real time: clock faults move the cluster's nodes, never a
// guest's. On an error, what it made is removed again.
func (p *Provider) AddBroker(ctx context.Context) (id int32, err error) {
	if p.id == "" || len(p.nodes) == 0 {
		return -1, errors.New("cluster/local: add broker: the cluster is not started")
	}
	p.guests.mu.Lock()
	defer p.guests.mu.Unlock()
	id = p.nextID()
	n, err := p.placeNode(ctx, id)
	if err == nil && p.jvm.clockLib != "" {
		err = writeClock(n.clockFile(p.id), 0)
	}
	if err != nil {
		return -1, errors.Join(fmt.Errorf("cluster/local: add broker %d: %w", id, err), p.dropGuest(ctx, &node{id: id, ns: nsName(p.id, id)}))
	}
	if err := p.joinGuest(ctx, n); err != nil {
		return -1, errors.Join(fmt.Errorf("cluster/local: add broker %d: %w", id, err), n.kill(ctx), p.dropGuest(ctx, n))
	}
	p.guests.nodes = append(p.guests.nodes, n)
	return id, nil
}

// nextID is one more than every node's and guest's id; callers hold
// p.guests.mu.
func (p *Provider) nextID() int32 {
	var top int32
	for _, n := range slices.Concat(p.nodes, p.guests.nodes) {
		top = max(top, n.id)
	}
	return top + 1
}

// joinGuest configures, formats and starts placed node n and waits until
// it has joined.
func (p *Provider) joinGuest(ctx context.Context, n *node) error {
	peer := p.nodes[0]
	peerProps, err := readProperties(filepath.Join(peer.dir, "server.properties"))
	if err != nil {
		return err
	}
	meta, err := readProperties(filepath.Join(peerProps["log.dirs"], "meta.properties"))
	if err != nil {
		return err
	}
	if meta["cluster.id"] == "" {
		return fmt.Errorf("node %d's meta.properties names no cluster.id", peer.id)
	}
	self := realbroker.Node{ID: n.id, Host: n.ip, Port: n.port}
	props, err := realbroker.BrokerOnly(peerProps, self, filepath.Join(n.dir, "data"))
	if err != nil {
		return err
	}
	text := realbroker.RenderProperties(fmt.Sprintf("written by kafkachaos cluster/local: broker %d added to the running cluster", n.id), props)
	if err := os.WriteFile(filepath.Join(n.dir, "server.properties"), []byte(text), 0o644); err != nil {
		return err
	}
	if err := n.format(ctx, p.jvm, meta["cluster.id"]); err != nil {
		return err
	}
	if err := n.start(p.jvm); err != nil {
		return err
	}
	return p.AwaitJoined(ctx, n.id, n.addr(), n.exited, func() string { return n.logTail(30) })
}

// readProperties reads a properties file (server.properties, meta.properties).
func readProperties(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	props, err := realbroker.ParseProperties(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return props, nil
}

// RemoveAdded stops guest id cleanly, unregisters it (Unregister: fenced,
// then gone from DescribeCluster), and removes its namespace and storage;
// its broker.log, format.log and server.properties stay in the run's
// directory. A guest it could not remove stays a guest, for a retry and
// for Stop.
func (p *Provider) RemoveAdded(ctx context.Context, id int32) error {
	p.guests.mu.Lock()
	defer p.guests.mu.Unlock()
	i := slices.IndexFunc(p.guests.nodes, func(n *node) bool { return n.id == id })
	if i < 0 {
		return nil
	}
	n := p.guests.nodes[i]
	if err := n.stopClean(ctx); err != nil {
		return err
	}
	if err := p.Unregister(ctx, id); err != nil {
		return err
	}
	if err := p.dropGuest(ctx, n); err != nil {
		return fmt.Errorf("cluster/local: removing added broker %d: %w", id, err)
	}
	p.guests.nodes = slices.Delete(p.guests.nodes, i, i+1)
	return nil
}

// dropGuest removes stopped guest n's namespace (its veth goes with it)
// and its storage.
func (p *Provider) dropGuest(ctx context.Context, n *node) error {
	var errs []error
	if p.net != nil {
		if _, err := run(ctx, "", "ip", "netns", "del", n.ns); err != nil && nsExists(ctx, n.ns) {
			errs = append(errs, err)
		}
	}
	if n.dir != "" {
		errs = append(errs, os.RemoveAll(filepath.Join(n.dir, "data")))
	}
	return errors.Join(errs...)
}

// nsExists reports whether network namespace ns is listed.
func nsExists(ctx context.Context, ns string) bool {
	out, err := run(ctx, "", "ip", "netns", "list")
	return err != nil || slices.Contains(strings.Fields(out), ns)
}

// killGuests SIGKILLs every guest, for Stop; their namespaces go with the
// run's.
func (p *Provider) killGuests(ctx context.Context) error {
	p.guests.mu.Lock()
	defer p.guests.mu.Unlock()
	var errs []error
	for _, n := range p.guests.nodes {
		errs = append(errs, n.kill(ctx))
	}
	p.guests.nodes = nil
	return errors.Join(errs...)
}
