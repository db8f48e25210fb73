package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"
	"time"
)

// ClientNode stands for the test process (the host side of the bridge) in
// Partition components and CutLinks: cutting it from a broker cuts every
// client of the run from that broker.
const ClientNode int32 = -1

// ErrNoNetworkFaults is returned by network fault hooks in loopback mode.
var ErrNoNetworkFaults = errors.New("cluster/local: network faults need root and network namespaces; this run uses the loopback fallback (kill and pause only)")

// Kill SIGKILLs node's JVM.
func (p *Provider) Kill(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	return n.kill(ctx)
}

// Restart starts node's JVM again on its existing storage and waits until
// its listener accepts connections (unless clients are cut from it).
func (p *Provider) Restart(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	if err := n.start(p.jvm); err != nil {
		return err
	}
	if p.clientCut(id) {
		return nil
	}
	return waitListening(ctx, n, 60*time.Second)
}

// Pause SIGSTOPs node's JVM: it keeps its sockets but answers nothing.
func (p *Provider) Pause(_ context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	return n.signal(syscall.SIGSTOP)
}

// Resume SIGCONTs a paused node.
func (p *Provider) Resume(_ context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	return n.signal(syscall.SIGCONT)
}

// Partition replaces every cut with components: nodes in different
// components cannot exchange packets. ClientNode may appear in one
// component; then brokers outside it are cut from the clients. Every
// broker must be in exactly one component.
func (p *Provider) Partition(ctx context.Context, components [][]int32) error {
	comp := make(map[int32]int)
	for i, c := range components {
		for _, id := range c {
			if _, dup := comp[id]; dup {
				return fmt.Errorf("cluster/local: partition: node %d in two components", id)
			}
			if id != ClientNode {
				if _, err := p.node(id); err != nil {
					return err
				}
			}
			comp[id] = i
		}
	}
	var links [][2]int32
	for _, n := range p.nodes {
		if _, ok := comp[n.id]; !ok {
			return fmt.Errorf("cluster/local: partition: node %d is in no component", n.id)
		}
	}
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
// existing ones: the way to build non-transitive topologies such as a
// bridge (1-2 and 2-3 connected, 1-3 cut) or clients cut from one broker.
func (p *Provider) CutLinks(ctx context.Context, links [][2]int32) error {
	p.netMu.Lock()
	all := append(slices.Clone(p.cuts), links...)
	p.netMu.Unlock()
	return p.setCuts(ctx, all)
}

// Heal removes every cut. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error { return p.setCuts(ctx, nil) }

// setCuts makes each namespace's blocked set exactly the peers it is cut
// from; the host side is enforced in the broker's namespace (the host's own
// firewall is left alone).
func (p *Provider) setCuts(ctx context.Context, links [][2]int32) error {
	if p.net == nil || !p.nft {
		return ErrNoNetworkFaults
	}
	blocked := make(map[int32][]string)
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
			return fmt.Errorf("cluster/local: cannot cut node %d from itself", l[0])
		}
		blocked[l[0]] = append(blocked[l[0]], p.ipOf(l[1]))
		blocked[l[1]] = append(blocked[l[1]], p.ipOf(l[0]))
	}
	p.netMu.Lock()
	defer p.netMu.Unlock()
	var errs []error
	for _, n := range p.nodes {
		script := "flush set inet kafkachaos blocked\n"
		if ips := blocked[n.id]; len(ips) > 0 {
			script += "add element inet kafkachaos blocked { " + strings.Join(ips, ", ") + " }\n"
		}
		if _, err := runIn(ctx, n.ns, script, "nft", "-f", "-"); err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n.id, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/local: setting cuts: %w", err)
	}
	p.cuts = links
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
	if p.net == nil || !p.nft {
		return ErrNoNetworkFaults
	}
	if pct < 0 || pct > 100 {
		return fmt.Errorf("cluster/local: packet loss %d%%, want 0..100", pct)
	}
	n, err := p.node(id)
	if err != nil {
		return err
	}
	script := "flush chain inet kafkachaos loss\n"
	switch {
	case pct == 100: // numgen's range is 0..99: "< 100" is not accepted
		script += "add rule inet kafkachaos loss drop\n"
	case pct > 0:
		script += fmt.Sprintf("add rule inet kafkachaos loss numgen random mod 100 < %d drop\n", pct)
	}
	if _, err := runIn(ctx, n.ns, script, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("cluster/local: packet loss on node %d: %w", id, err)
	}
	return nil
}

// SlowLink limits node's link to bitsPerSecond in both directions with a
// tbf qdisc (this kernel has no netem, so this is bandwidth, not added
// latency); 0 removes the limit.
func (p *Provider) SlowLink(ctx context.Context, id int32, bitsPerSecond int64) error {
	if p.net == nil {
		return ErrNoNetworkFaults
	}
	if bitsPerSecond < 0 {
		return fmt.Errorf("cluster/local: link rate %d, want >= 0", bitsPerSecond)
	}
	n, err := p.node(id)
	if err != nil {
		return err
	}
	host := vethName(p.id, id)
	if bitsPerSecond == 0 {
		return errors.Join(
			ignoreNoQdisc(runIn(ctx, n.ns, "", "tc", "qdisc", "del", "dev", "eth0", "root")),
			ignoreNoQdisc(run(ctx, "", "tc", "qdisc", "del", "dev", host, "root")))
	}
	tbf := []string{"root", "tbf", "rate", fmt.Sprintf("%dbit", bitsPerSecond), "burst", "32kbit", "latency", "500ms"}
	if _, err := runIn(ctx, n.ns, "", "tc", append([]string{"qdisc", "replace", "dev", "eth0"}, tbf...)...); err != nil {
		return fmt.Errorf("cluster/local: slow link on node %d: %w", id, err)
	}
	if _, err := run(ctx, "", "tc", append([]string{"qdisc", "replace", "dev", host}, tbf...)...); err != nil {
		return fmt.Errorf("cluster/local: slow link on node %d: %w", id, err)
	}
	return nil
}

// ignoreNoQdisc makes deleting an absent root qdisc a success, so that
// clearing a slow link is idempotent.
func ignoreNoQdisc(out string, err error) error {
	if err != nil && (strings.Contains(out, "handle of zero") || strings.Contains(out, "No such file")) {
		return nil
	}
	return err
}

// HealAll removes every network fault and resumes paused nodes; killed
// nodes stay down (restarting is a decision, not a heal). Idempotent.
func (p *Provider) HealAll(ctx context.Context) error {
	var errs []error
	if p.net != nil {
		if p.nft {
			errs = append(errs, p.Heal(ctx))
		}
		for _, n := range p.nodes {
			if p.nft {
				errs = append(errs, p.PacketLoss(ctx, n.id, 0))
			}
			errs = append(errs, p.SlowLink(ctx, n.id, 0))
		}
	}
	for _, n := range p.nodes {
		n.mu.Lock()
		paused := n.running() && n.paused
		n.mu.Unlock()
		if paused {
			errs = append(errs, n.signal(syscall.SIGCONT))
		}
	}
	return errors.Join(errs...)
}

// waitListening waits until node's client listener accepts a connection.
func waitListening(ctx context.Context, n *node, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", n.addr(), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if why := n.exited(); why != "" {
			return fmt.Errorf("cluster/local: node %d %s after restart; log tail:\n%s", n.id, why, n.logTail(30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster/local: node %d not listening on %s after %s: %w", n.id, n.addr(), limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
