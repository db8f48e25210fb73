package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/moby/moby/client"
)

// ClientNode stands for the test process (the host side of the run's
// bridge) in Partition components and CutLinks (cluster.ClientNode).
const ClientNode = cluster.ClientNode

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
	if err := p.applyNet(ctx, n, p.Blocked(id)); err != nil {
		return err
	}
	exited := func() string { return p.exited(ctx, n) }
	return p.AwaitRestart(ctx, id, exited, func() string { return p.logTail(ctx, n, 30) })
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
	if err := p.freeze(ctx, n); err != nil {
		return fmt.Errorf("cluster/docker: pause node %d: %w", id, err)
	}
	n.paused = true
	return p.waitState(ctx, n, true, true, realbroker.VerifyTimeout)
}

// freezeAttempts bounds freeze's retries. runc gives up freezing a cgroup
// whose threads keep running through its polls (a busy JVM on loaded
// cores), thaws it and answers "unable to freeze"; the next try usually
// lands. Nothing is left frozen between tries.
const freezeAttempts = 5

// freeze is docker pause, tried again while runc answers "unable to
// freeze".
func (p *Provider) freeze(ctx context.Context, n *node) error {
	var err error
	for i := range freezeAttempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return errors.Join(err, ctx.Err())
			case <-time.After(time.Duration(i) * 100 * time.Millisecond):
			}
		}
		if _, err = p.cli.ContainerPause(ctx, n.c.GetContainerID(), client.ContainerPauseOptions{}); err == nil ||
			!strings.Contains(err.Error(), "unable to freeze") {
			return err
		}
	}
	return fmt.Errorf("%d tries: %w", freezeAttempts, err)
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
	return p.waitState(ctx, n, true, false, realbroker.VerifyTimeout)
}

// Heal removes every cut. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error { return p.SetCuts(ctx, nil) }

// netOps is the provider as realbroker.Cluster reaches its nodes' networks.
type netOps struct{ *Provider }

// NoCuts is nil: every container has its own namespace and the host's nft.
func (p netOps) NoCuts() error { return nil }

// PeerIP is a node's address on the run's subnet, or the host's for
// ClientNode.
func (p netOps) PeerIP(id int32) string { return p.net.PeerIP(id) }

// ApplyBlocked writes node id's cuts (and its packet loss: the table is
// rewritten whole) into its namespace.
func (p netOps) ApplyBlocked(ctx context.Context, id int32, blocked []string) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	return p.applyNet(ctx, n, blocked)
}

// applyNet writes node's cuts (it is cut from blocked) and packet loss into
// its namespace; a node that is down gets them when it restarts.
func (p *Provider) applyNet(ctx context.Context, n *node, blocked []string) error {
	n.mu.Lock()
	loss := n.loss
	n.mu.Unlock()
	running, _, pid, err := p.state(ctx, n)
	if err != nil || !running {
		return err
	}
	if _, err := inNetns(ctx, pid, nftScript(blocked, loss), "nft", "-f", "-"); err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	return checkNet(ctx, n, pid, blocked, loss)
}

// ApplyLoss records node id's packet loss, to re-apply after a restart,
// and writes it with its cuts into its namespace.
func (p netOps) ApplyLoss(ctx context.Context, id int32, pct int) error {
	n, err := p.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.loss = pct
	n.mu.Unlock()
	return p.applyNet(ctx, n, p.Blocked(id))
}

// Link is node id's veth pair, both ends entered by namespace: eth0 in the
// container's, its peer in the host's. A restart gives the container a new
// veth, so a slow link ends with it.
func (p netOps) Link(ctx context.Context, id int32) (realbroker.Link, error) {
	n, err := p.node(id)
	if err != nil {
		return realbroker.Link{}, err
	}
	pid, err := p.pid(ctx, n)
	if err != nil {
		return realbroker.Link{}, err
	}
	host, err := hostVeth(ctx, pid)
	if err != nil {
		return realbroker.Link{}, fmt.Errorf("cluster/docker: slow link on node %d: %w", id, err)
	}
	return realbroker.Link{InNode: netnsRun(pid), OnHost: netnsRun(hostNetns), HostDev: host}, nil
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
