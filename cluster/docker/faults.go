package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/moby/moby/client"
)

// ClientNode stands for the test process (the host side of the run's
// bridge) in Partition components and CutLinks, as in cluster/local.
const ClientNode = local.ClientNode

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
	return p.waitStopped(ctx, n)
}

func (p *Provider) waitStopped(ctx context.Context, n *node) error {
	for {
		running, _, _, err := p.state(ctx, n)
		if err != nil || !running {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster/docker: node %d still running after SIGKILL: %w", n.id, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Restart starts node's container again (same address, same storage),
// re-applies the network faults in force to its fresh namespace, and waits
// until its listener accepts connections (unless clients are cut from it).
func (p *Provider) Restart(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	running, _, _, err := p.state(ctx, n)
	if err == nil && running {
		err = fmt.Errorf("cluster/docker: node %d is already running", id)
	}
	if err == nil {
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
	return p.waitListening(ctx, n, restartListenTimeout)
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
	return nil
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
	return nil
}

// Partition replaces every cut with components: nodes in different
// components cannot exchange packets. ClientNode may appear in one
// component; brokers outside it are then cut from the clients. Every
// broker must be in exactly one component.
func (p *Provider) Partition(ctx context.Context, components [][]int32) error {
	comp := make(map[int32]int)
	for i, c := range components {
		for _, id := range c {
			if _, dup := comp[id]; dup {
				return fmt.Errorf("cluster/docker: partition: node %d in two components", id)
			}
			if id != ClientNode {
				if _, err := p.node(id); err != nil {
					return err
				}
			}
			comp[id] = i
		}
	}
	for _, n := range p.nodes {
		if _, ok := comp[n.id]; !ok {
			return fmt.Errorf("cluster/docker: partition: node %d is in no component", n.id)
		}
	}
	var links [][2]int32
	ids := append([]int32{ClientNode}, p.ids()...)
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			ca, okA := comp[a]
			cb, okB := comp[b]
			if okA && okB && ca != cb {
				links = append(links, [2]int32{a, b})
			}
		}
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
	for _, l := range links {
		for _, id := range l {
			if id == ClientNode {
				continue
			}
			if _, err := p.node(id); err != nil {
				return err
			}
		}
		if l[0] == l[1] {
			return fmt.Errorf("cluster/docker: cannot cut node %d from itself", l[0])
		}
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
	for _, l := range p.cuts {
		switch id {
		case l[0]:
			ips = append(ips, p.ipOf(l[1]))
		case l[1]:
			ips = append(ips, p.ipOf(l[0]))
		}
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
	if _, err := inNetns(ctx, pid, nftScript(p.blockedFor(n.id), loss), "nft", "-f", "-"); err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return nil
}

// clientCut reports whether the clients are currently cut from node id.
func (p *Provider) clientCut(id int32) bool {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	for _, l := range p.cuts {
		if (l[0] == ClientNode && l[1] == id) || (l[1] == ClientNode && l[0] == id) {
			return true
		}
	}
	return false
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
		return errors.Join(
			ignoreNoQdisc(inNetns(ctx, pid, "", "tc", "qdisc", "del", "dev", "eth0", "root")),
			ignoreNoQdisc(inNetns(ctx, hostNetns, "", "tc", "qdisc", "del", "dev", host, "root")))
	}
	tbf := []string{"root", "tbf", "rate", fmt.Sprintf("%dbit", bitsPerSecond), "burst", "32kbit", "latency", "500ms"}
	if _, err := inNetns(ctx, pid, "", "tc", append([]string{"qdisc", "replace", "dev", "eth0"}, tbf...)...); err != nil {
		return fmt.Errorf("cluster/docker: slow link on node %d: %w", id, err)
	}
	if _, err := inNetns(ctx, hostNetns, "", "tc", append([]string{"qdisc", "replace", "dev", host}, tbf...)...); err != nil {
		return fmt.Errorf("cluster/docker: slow link on node %d: %w", id, err)
	}
	return nil
}

// SlowLinkMechanism names how SlowLink limits a link, for the nemesis op.
func (p *Provider) SlowLinkMechanism() string {
	return "tbf bandwidth cap on both ends of the container's veth (no netem on this kernel: no added latency)"
}

// ignoreNoQdisc makes deleting an absent root qdisc a success, so that
// clearing a slow link is idempotent.
func ignoreNoQdisc(out string, err error) error {
	if err != nil && (strings.Contains(out, "handle of zero") || strings.Contains(out, "No such file")) {
		return nil
	}
	return err
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
