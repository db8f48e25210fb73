package local

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// CutReplication adds cuts of the broker listener alone between pairs of
// brokers, keeping existing ones: the two cannot replicate from each other
// (either way), yet both still reach the controller quorum on the
// controller listener and the clients still reach both. Heal removes them.
func (p *Provider) CutReplication(ctx context.Context, links [][2]int32) error {
	if err := realbroker.CheckBrokerLinks(links, p.IDs()); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	if err := p.RefuseCutsThroughProxies(links); err != nil {
		return err
	}
	p.replMu.Lock()
	all := append(slices.Clone(p.replCuts), links...)
	p.replMu.Unlock()
	return p.setReplicationCuts(ctx, all)
}

// ReplicationPorts names the ports a replication cut drops (the broker
// listeners) and those it leaves up (the controller listeners), for the
// nemesis op.
func (p *Provider) ReplicationPorts() (cut, kept []int) {
	for _, n := range p.nodes {
		if !slices.Contains(cut, n.port) {
			cut = append(cut, n.port)
		}
		if !slices.Contains(kept, n.ctrlPort) {
			kept = append(kept, n.ctrlPort)
		}
	}
	return cut, kept
}

// setReplicationCuts makes each namespace's replication chains drop exactly
// the broker-listener traffic of links; nil heals. Each node's rule names
// its own listener port: a peer fetching from it hits it as dport, its
// fetches from a peer come back from the peer's listener as sport (every
// namespaced node listens on the same port).
func (p *Provider) setReplicationCuts(ctx context.Context, links [][2]int32) error {
	if err := (netOps{p}).NoCuts(); err != nil {
		return err
	}
	p.replMu.Lock()
	defer p.replMu.Unlock()
	var errs []error
	for _, n := range p.nodes {
		ips := p.PeerIPs(realbroker.CutFrom(links, n.id))
		script := realbroker.ReplicationRules("kafkachaos", ips, n.port)
		if _, err := runIn(ctx, n.ns, script, "nft", "-f", "-"); err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n.id, err))
			continue
		}
		errs = append(errs, checkTable(ctx, n, func(l string) error { return realbroker.CheckReplication(l, ips, n.port) }))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/local: setting replication cuts: %w", err)
	}
	p.replCuts = links
	return nil
}
