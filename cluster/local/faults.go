package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// ClientNode stands for the test process (the host side of the bridge) in
// Partition components and CutLinks: cutting it from a broker cuts every
// client of the run from that broker (cluster.ClientNode).
const ClientNode = cluster.ClientNode

// realbroker cannot import cluster, so it has its own ClientNode: this
// index is out of range, and the package does not compile, if they differ.
var _ = [1]struct{}{}[ClientNode-realbroker.ClientNode]

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
// its listener accepts connections and it is registered in the cluster
// metadata again, answering requests (unless a cut keeps the clients or
// its peers from it: then it cannot be seen to come back until the heal).
// A node that is running is only checked: a kill that failed half way is
// healed this way.
func (p *Provider) Restart(ctx context.Context, id int32) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	if err := n.start(p.jvm); err != nil && !errors.Is(err, errRunning) {
		return err
	}
	if p.clientCut(id) {
		return nil
	}
	if err := waitListening(ctx, n, 60*time.Second); err != nil {
		return err
	}
	if p.cutAtAll(id) {
		return nil
	}
	exited := func() error {
		if why := n.exited(); why != "" {
			return fmt.Errorf("node %d %s after restart; log tail:\n%s", n.id, why, n.logTail(30))
		}
		return nil
	}
	if err := p.admin.WaitRegistered(ctx, id, registerTimeout, exited); err != nil {
		return fmt.Errorf("cluster/local: node %d: %w", id, err)
	}
	return nil
}

// Pause SIGSTOPs node's JVM, which keeps its sockets but answers nothing,
// and returns once every thread of it is stopped.
func (p *Provider) Pause(ctx context.Context, id int32) error {
	return p.signalVerified(ctx, id, syscall.SIGSTOP, true)
}

// Resume SIGCONTs a paused node and returns once no thread is stopped.
func (p *Provider) Resume(ctx context.Context, id int32) error {
	return p.signalVerified(ctx, id, syscall.SIGCONT, false)
}

func (p *Provider) signalVerified(ctx context.Context, id int32, sig syscall.Signal, stopped bool) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	pid, err := n.signalPid(sig)
	if err != nil {
		return err
	}
	if err := waitStopped(ctx, pid, stopped, verifyTimeout); err != nil {
		return fmt.Errorf("cluster/local: node %d: %s sent but not in effect: %w", id, sig, err)
	}
	return nil
}

// Partition replaces every cut with components: nodes in different
// components cannot exchange packets. ClientNode may appear in one
// component; then brokers outside it are cut from the clients. Every
// broker must be in exactly one component.
func (p *Provider) Partition(ctx context.Context, components [][]int32) error {
	links, err := realbroker.PartitionLinks(components, p.ids())
	if err != nil {
		return fmt.Errorf("cluster/local: %w", err)
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

// Heal removes every cut, replication cuts included. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error {
	err := p.setCuts(ctx, nil)
	if errors.Is(err, ErrNoNetworkFaults) {
		return err
	}
	return errors.Join(err, p.setReplicationCuts(ctx, nil))
}

// setCuts makes each namespace's blocked set exactly the peers it is cut
// from; the host side is enforced in the broker's namespace (the host's own
// firewall is left alone).
func (p *Provider) setCuts(ctx context.Context, links [][2]int32) error {
	if p.net == nil || !p.nft {
		return ErrNoNetworkFaults
	}
	if err := realbroker.CheckLinks(links, p.ids()); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	p.netMu.Lock()
	defer p.netMu.Unlock()
	var errs []error
	for _, n := range p.nodes {
		script := "flush set inet kafkachaos blocked\n"
		var ips []string
		for _, peer := range realbroker.CutFrom(links, n.id) {
			ips = append(ips, p.ipOf(peer))
		}
		if len(ips) > 0 {
			script += "add element inet kafkachaos blocked { " + strings.Join(ips, ", ") + " }\n"
		}
		if _, err := runIn(ctx, n.ns, script, "nft", "-f", "-"); err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n.id, err))
			continue
		}
		errs = append(errs, checkTable(ctx, n, func(l string) error { return realbroker.CheckBlocked(l, ips) }))
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
	return realbroker.ClientCut(p.cuts, id)
}

// cutAtAll reports whether any cut (clients or peers) involves node id.
func (p *Provider) cutAtAll(id int32) bool {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	return len(realbroker.CutFrom(p.cuts, id)) > 0
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
	if err := checkTable(ctx, n, func(l string) error { return realbroker.CheckLoss(l, pct) }); err != nil {
		return fmt.Errorf("cluster/local: packet loss: %w", err)
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
		err = errors.Join(
			realbroker.IgnoreNoQdisc(runIn(ctx, n.ns, "", "tc", "qdisc", "del", "dev", "eth0", "root")),
			realbroker.IgnoreNoQdisc(run(ctx, "", "tc", "qdisc", "del", "dev", host, "root")))
	} else {
		tbf := realbroker.TBF(bitsPerSecond)
		_, err = runIn(ctx, n.ns, "", "tc", append([]string{"qdisc", "replace", "dev", "eth0"}, tbf...)...)
		if err == nil {
			_, err = run(ctx, "", "tc", append([]string{"qdisc", "replace", "dev", host}, tbf...)...)
		}
	}
	if err == nil {
		err = checkQdiscs(ctx, n, host, bitsPerSecond)
	}
	if err != nil {
		return fmt.Errorf("cluster/local: slow link on node %d: %w", id, err)
	}
	return nil
}

// checkQdiscs reads back the root qdisc of both ends of node n's link.
func checkQdiscs(ctx context.Context, n *node, host string, bitsPerSecond int64) error {
	for _, end := range []struct{ ns, dev string }{{n.ns, "eth0"}, {"", host}} {
		args := []string{"-j", "qdisc", "show", "dev", end.dev}
		out, err := run(ctx, "", "tc", args...)
		if end.ns != "" {
			out, err = runIn(ctx, end.ns, "", "tc", args...)
		}
		if err == nil {
			err = realbroker.CheckTBF(out, bitsPerSecond)
		}
		if err != nil {
			return fmt.Errorf("reading %s back: %w", end.dev, err)
		}
	}
	return nil
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
	exited := func() error {
		if why := n.exited(); why != "" {
			return fmt.Errorf("node %d %s after restart; log tail:\n%s", n.id, why, n.logTail(30))
		}
		return nil
	}
	if err := realbroker.WaitListening(ctx, n.addr(), limit, exited); err != nil {
		return fmt.Errorf("cluster/local: node %d: %w", n.id, err)
	}
	return nil
}
