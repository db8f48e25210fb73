package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/moby/moby/client"
)

// ClientNode stands for the test process (the host side of the run's
// bridge) in Partition components and CutLinks (cluster.ClientNode).
const ClientNode = cluster.ClientNode

// realbroker cannot import cluster, so it has its own ClientNode: this
// index is out of range, and the package does not compile, if they differ.
var _ = [1]struct{}{}[ClientNode-realbroker.ClientNode]

// restartListenTimeout bounds how long Restart waits for the listener.
const restartListenTimeout = 60 * time.Second

// Kill SIGKILLs node's container (the JVM is its init process) and waits
// until the engine reports it stopped.
func (p *Provider) Kill(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	cid := n.c.GetContainerID()
	if running, paused, _, err := p.state(ctx, n); err != nil {
		return err
	} else if !running {
		n.killed = true
		return nil
	} else if paused {
		// A frozen process cannot die until thawed; SIGKILL is queued first
		// so the JVM never runs another instruction of Kafka code.
		if _, err := p.cli.ContainerKill(ctx, cid, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
			return fmt.Errorf("cluster/docker: kill node %d: %w", id, err)
		}
		if _, err := p.cli.ContainerUnpause(ctx, cid, client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("cluster/docker: kill node %d (thawing it): %w", id, err)
		}
	} else if _, err := p.cli.ContainerKill(ctx, cid, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("cluster/docker: kill node %d: %w", id, err)
	}
	n.killed, n.paused = true, false
	return p.waitState(ctx, n, false, false, killTimeout)
}

// Restart starts node's container again (same address, same storage),
// re-applies the network faults in force to its fresh namespace, and waits
// until its listener accepts connections and it is back in the cluster
// metadata (unless a cut keeps the clients or its peers from it). A node
// that is running is only checked: a kill that failed half way is healed
// this way.
func (p *Provider) Restart(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	running, _, _, err := p.state(ctx, n)
	if err == nil && !running {
		if _, serr := p.cli.ContainerStart(ctx, n.c.GetContainerID(), client.ContainerStartOptions{}); serr != nil {
			err = fmt.Errorf("cluster/docker: restart node %d: %w", id, serr)
		} else {
			n.killed = false
		}
	}
	n.mu.Unlock()
	if err != nil {
		return err
	}
	if err := p.applyNet(ctx, n); err != nil {
		return err
	}
	if p.clientCut(id) {
		return nil
	}
	if err := p.waitListening(ctx, n, restartListenTimeout); err != nil {
		return err
	}
	if len(p.blockedFor(id)) > 0 {
		return nil // cut from peers: it cannot rejoin until the heal
	}
	return p.waitRegistered(ctx, n)
}

// gracefulStopSeconds is how long StopNode lets a broker shut down cleanly
// before the engine kills it.
const gracefulStopSeconds = 60

// StopNode shuts node down cleanly (SIGTERM: controlled shutdown, leadership
// handed over, logs flushed); the engine SIGKILLs it only after a minute.
func (p *Provider) StopNode(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	timeout := gracefulStopSeconds
	if _, err := p.cli.ContainerStop(ctx, n.c.GetContainerID(), client.ContainerStopOptions{Timeout: &timeout}); err != nil {
		return fmt.Errorf("cluster/docker: stop node %d: %w", id, err)
	}
	n.killed, n.paused = true, false
	return nil
}

// StartNode starts a stopped node again: the same as Restart.
func (p *Provider) StartNode(ctx context.Context, id int32) error { return p.Restart(ctx, id) }

// Pause freezes node's container (docker pause: the cgroup freezer): it
// keeps its sockets and answers nothing.
func (p *Provider) Pause(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := p.cli.ContainerPause(ctx, n.c.GetContainerID(), client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("cluster/docker: pause node %d: %w", id, err)
	}
	n.paused = true
	return p.waitState(ctx, n, true, true, verifyTimeout)
}

// Resume thaws a paused node.
func (p *Provider) Resume(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := p.cli.ContainerUnpause(ctx, n.c.GetContainerID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("cluster/docker: resume node %d: %w", id, err)
	}
	n.paused = false
	return p.waitState(ctx, n, true, false, verifyTimeout)
}

// Partition replaces every cut with components: nodes in different
// components cannot exchange packets. ClientNode may appear in one
// component; brokers outside it are then cut from the clients. Every
// broker must be in exactly one component.
func (p *Provider) Partition(ctx context.Context, components [][]int32) error {
	links, err := realbroker.PartitionLinks(components, p.ids())
	if err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	return p.setCuts(ctx, links)
}

// CutLinks adds cuts between pairs of nodes (ClientNode allowed), keeping
// existing ones: non-transitive topologies such as a bridge, or clients cut
// from one broker.
func (p *Provider) CutLinks(ctx context.Context, links [][2]int32) error {
	p.netMu.Lock()
	all := append(slices.Clone(p.cuts), links...)
	p.netMu.Unlock()
	return p.setCuts(ctx, all)
}

// Heal removes every cut. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error { return p.setCuts(ctx, nil) }

func (p *Provider) setCuts(ctx context.Context, links [][2]int32) error {
	if err := realbroker.CheckLinks(links, p.ids()); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	p.netMu.Lock()
	p.cuts = links
	p.netMu.Unlock()
	var errs []error
	for _, n := range p.nodes {
		errs = append(errs, p.applyNet(ctx, n))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/docker: setting cuts: %w", err)
	}
	return nil
}

// blockedFor lists the addresses node id is currently cut from.
func (p *Provider) blockedFor(id int32) []string {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	var ips []string
	for _, peer := range realbroker.CutFrom(p.cuts, id) {
		ips = append(ips, p.ipOf(peer))
	}
	return ips
}

func (p *Provider) ipOf(id int32) string {
	if id == ClientNode {
		return p.net.hostIP()
	}
	return p.net.nodeIP(id)
}

// applyNet writes node's cuts and packet loss into its namespace; a node
// that is down gets them when it restarts.
func (p *Provider) applyNet(ctx context.Context, n *node) error {
	n.mu.Lock()
	loss := n.loss
	n.mu.Unlock()
	running, _, pid, err := p.state(ctx, n)
	if err != nil || !running {
		return err
	}
	blocked := p.blockedFor(n.id)
	if _, err := inNetns(ctx, pid, nftScript(blocked, loss), "nft", "-f", "-"); err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return checkNet(ctx, n, pid, blocked, loss)
}

// clientCut reports whether the clients are currently cut from node id.
func (p *Provider) clientCut(id int32) bool {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	return realbroker.ClientCut(p.cuts, id)
}

// PacketLoss drops pct percent (0..100) of the packets node receives, at
// random (nft numgen); 0 removes the loss. Applies to peers and clients.
func (p *Provider) PacketLoss(ctx context.Context, id int32, pct int) error {
	if pct < 0 || pct > 100 {
		return fmt.Errorf("cluster/docker: packet loss %d%%, want 0..100", pct)
	}
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.loss = pct
	n.mu.Unlock()
	if err := p.applyNet(ctx, n); err != nil {
		return fmt.Errorf("cluster/docker: packet loss on node %d: %w", id, err)
	}
	return nil
}

// SlowLink limits node's link to bitsPerSecond in both directions with tbf
// qdiscs on both ends of its veth (this kernel has no netem, so this is
// bandwidth, not added latency, as in cluster/local); 0 removes the limit.
// A restart gives the container a new veth, so the limit ends with it.
func (p *Provider) SlowLink(ctx context.Context, id int32, bitsPerSecond int64) error {
	if bitsPerSecond < 0 {
		return fmt.Errorf("cluster/docker: link rate %d, want >= 0", bitsPerSecond)
	}
	n, err := p.node(id)
	if err != nil {
		return err
	}
	pid, err := p.pid(ctx, n)
	if err != nil {
		return err
	}
	host, err := hostVeth(ctx, pid)
	if err != nil {
		return fmt.Errorf("cluster/docker: slow link on node %d: %w", id, err)
	}
	if bitsPerSecond == 0 {
		err = errors.Join(
			realbroker.IgnoreNoQdisc(inNetns(ctx, pid, "", "tc", "qdisc", "del", "dev", "eth0", "root")),
			realbroker.IgnoreNoQdisc(inNetns(ctx, hostNetns, "", "tc", "qdisc", "del", "dev", host, "root")))
	} else {
		tbf := realbroker.TBF(bitsPerSecond)
		_, err = inNetns(ctx, pid, "", "tc", append([]string{"qdisc", "replace", "dev", "eth0"}, tbf...)...)
		if err == nil {
			_, err = inNetns(ctx, hostNetns, "", "tc", append([]string{"qdisc", "replace", "dev", host}, tbf...)...)
		}
	}
	if err == nil {
		err = checkQdiscs(ctx, pid, host, bitsPerSecond)
	}
	if err != nil {
		return fmt.Errorf("cluster/docker: slow link on node %d: %w", id, err)
	}
	return nil
}

// SlowLinkMechanism names how SlowLink limits a link, for the nemesis op.
func (p *Provider) SlowLinkMechanism() string {
	return "tbf bandwidth cap on both ends of the container's veth (no netem on this kernel: no added latency)"
}

// HealAll removes every network fault and thaws paused nodes; killed nodes
// stay down (restarting is a decision, not a heal). Idempotent.
func (p *Provider) HealAll(ctx context.Context) error {
	var errs []error
	for _, n := range p.nodes {
		n.mu.Lock()
		n.loss = 0
		n.mu.Unlock()
	}
	errs = append(errs, p.Heal(ctx))
	for _, n := range p.nodes {
		running, paused, _, err := p.state(ctx, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if paused {
			errs = append(errs, p.Resume(ctx, n.id))
		}
		if running {
			errs = append(errs, p.SlowLink(ctx, n.id, 0))
		}
	}
	return errors.Join(errs...)
}
