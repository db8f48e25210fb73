package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
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
	return p.AwaitRestart(ctx, id, n.exited, func() string { return n.logTail(30) })
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
	if err := procstat.WaitStopped(ctx, pid, stopped, realbroker.VerifyTimeout); err != nil {
		return fmt.Errorf("cluster/local: node %d: %s sent but not in effect: %w", id, sig, err)
	}
	return nil
}

// Heal removes every cut, replication cuts included. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error {
	err := p.SetCuts(ctx, nil)
	if errors.Is(err, ErrNoNetworkFaults) {
		return err
	}
	return errors.Join(err, p.setReplicationCuts(ctx, nil))
}

// NoCuts is ErrNoNetworkFaults without namespaces or nft.
func (p netOps) NoCuts() error {
	if p.net == nil || !p.nft {
		return ErrNoNetworkFaults
	}
	return nil
}

// netOps is the provider as realbroker.Cluster reaches its nodes' networks.
type netOps struct{ *Provider }

// PeerIP is a node's address on the run's subnet, or the host's for
// ClientNode.
func (p netOps) PeerIP(id int32) string { return p.net.PeerIP(id) }

// ApplyBlocked makes node id's blocked set exactly blocked; the host side
// is enforced in the broker's namespace too (the host's own firewall is
// left alone).
func (p netOps) ApplyBlocked(ctx context.Context, id int32, blocked []string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	script := "flush set inet kafkachaos blocked\n" + realbroker.BlockedRule(blocked)
	if _, err := n.runIn(ctx, script, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return checkTable(ctx, n, func(l string) error { return realbroker.CheckBlocked(l, blocked) })
}

// ApplyLoss makes node id's loss chain drop pct percent of what it receives.
func (p netOps) ApplyLoss(ctx context.Context, id int32, pct int) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	script := "flush chain inet kafkachaos loss\n" + realbroker.LossRule(pct)
	if _, err := n.runIn(ctx, script, "nft", "-f", "-"); err != nil {
		return err
	}
	return checkTable(ctx, n, func(l string) error { return realbroker.CheckLoss(l, pct) })
}

// Link is node id's veth pair: eth0 in its namespace, the bridge port on
// the host.
func (p netOps) Link(_ context.Context, id int32) (realbroker.Link, error) {
	n, err := p.node(id)
	if err != nil || p.net == nil {
		return realbroker.Link{}, cmp.Or(err, ErrNoNetworkFaults)
	}
	return realbroker.Link{InNode: n.runIn, OnHost: run, HostDev: vethName(p.id, id)}, nil
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
