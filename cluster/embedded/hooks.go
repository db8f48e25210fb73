package embedded

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func (e *Provider) newControl(sel cluster.RequestFault) (*controlFault, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fake == nil {
		return nil, errNotStarted
	}
	return e.controls.fault(sel), nil
}

// Delay implements cluster.RequestFaulter: matching requests wait d, then proceed.
// Other connections are served meanwhile.
func (e *Provider) Delay(sel cluster.RequestFault, d time.Duration) (cluster.Installed, error) {
	f, err := e.newControl(sel)
	if err != nil {
		return nil, err
	}
	f.install(func() (kmsg.Response, error, bool) {
		f.fake.SleepControl(func() { time.Sleep(d) })
		return nil, nil, false
	})
	return f, nil
}

// DropConnections implements cluster.RequestFaulter: kfake closes the connection of
// a matching request before handling it.
func (e *Provider) DropConnections(sel cluster.RequestFault) (cluster.Installed, error) {
	f, err := e.newControl(sel)
	if err != nil {
		return nil, err
	}
	f.install(func() (kmsg.Response, error, bool) { return nil, errDropped, true })
	return f, nil
}

// faultHandle adapts kfake's FaultHandle to Installed.
type faultHandle struct{ h *kfake.FaultHandle }

func (f faultHandle) Remove()   { f.h.Remove() }
func (f faultHandle) Hits() int { return f.h.Hits() }

// ErrorAfterApply implements cluster.RequestFaulter with a kfake Fault: for produce,
// REQUEST_TIMED_OUT and NOT_ENOUGH_REPLICAS_AFTER_APPEND are answered after
// the records were appended, exactly as a broker whose replication timed out.
func (e *Provider) ErrorAfterApply(sel cluster.RequestFault, errCode int16) (cluster.Installed, error) {
	if errCode != kerr.RequestTimedOut.Code && errCode != kerr.NotEnoughReplicasAfterAppend.Code {
		return nil, fmt.Errorf("embedded cluster: error after apply: code %d is answered before the write, want %d or %d",
			errCode, kerr.RequestTimedOut.Code, kerr.NotEnoughReplicasAfterAppend.Code)
	}
	fake := e.Fake()
	if fake == nil {
		return nil, errNotStarted
	}
	kf := kfake.Fault{
		Keys:  []kmsg.Key{kmsg.Produce},
		Nodes: sel.Nodes,
		Topic: sel.Topic,
		Err:   kerr.TypedErrorForCode(errCode),
		Count: -1,
	}
	if p := sel.Probability; p > 0 {
		kf.When = func(kmsg.Request) bool { return rand.Float64() < p }
	}
	return faultHandle{fake.Fault(kf)}, nil
}

// addrOf is n's address; "" for no node.
func addrOf(n *brokerNode) string {
	if n == nil {
		return ""
	}
	return n.addr
}

// nodeLocked finds node for hook, with e.mu held: the cluster must be
// started and have the node.
func (e *Provider) nodeLocked(hook string, node int32) (*brokerNode, error) {
	n, ok := e.nodes[node]
	switch {
	case e.fake == nil:
		return nil, errNotStarted
	case !ok:
		return nil, fmt.Errorf("embedded cluster: %s: no node %d", hook, node)
	}
	return n, nil
}

// nodeControlLocked is a control fault on every request to node, with e.mu
// held (so it cannot go through newControl, which takes it).
func (e *Provider) nodeControlLocked(node int32) *controlFault {
	return e.controls.fault(cluster.RequestFault{Nodes: []int32{node}})
}

// Kill implements cluster.NodeKiller: the node stops listening and every request
// that reaches it over an open connection closes that connection, as if its
// process died. Its log survives (kfake keeps one log per partition), so a
// kill here can never lose data: that needs real brokers. It returns once
// the node's port refuses connections.
func (e *Provider) Kill(ctx context.Context, node int32) error {
	addr, err := e.kill(node)
	if err != nil {
		return err
	}
	if err := verifyRefused(ctx, e.ownAddr(addr)); err != nil {
		return fmt.Errorf("embedded cluster: kill node %d: %w", node, err)
	}
	return nil
}

func (e *Provider) kill(node int32) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, err := e.nodeLocked("kill", node)
	if err != nil || n.down != nil {
		return addrOf(n), err
	}
	if err := e.fake.RemoveNode(node); err != nil {
		return "", fmt.Errorf("embedded cluster: kill node %d: %w", node, err)
	}
	f := e.nodeControlLocked(node)
	f.install(func() (kmsg.Response, error, bool) { return nil, errDropped, true })
	n.down = f
	return n.addr, nil
}

// Restart implements cluster.NodeKiller: the node listens again on its old port;
// it returns once the node answers a request there.
func (e *Provider) Restart(ctx context.Context, node int32) error {
	addr, err := e.restart(node)
	if err != nil {
		return err
	}
	if err := verifyAnswers(ctx, addr); err != nil {
		return fmt.Errorf("embedded cluster: restart node %d: %w", node, err)
	}
	return nil
}

func (e *Provider) restart(node int32) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, err := e.nodeLocked("restart", node)
	if err != nil || n.down == nil {
		return addrOf(n), err
	}
	n.down.Remove()
	// its port may still be held for a moment after the kill (see
	// verifyRefused): asked again for up to verifyTimeout
	deadline := time.Now().Add(verifyTimeout)
	for {
		_, _, err := e.fake.AddNode(node, n.port)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return "", fmt.Errorf("embedded cluster: restart node %d on port %d: %w", node, n.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.down = nil
	return n.addr, nil
}

// pauseFault holds every request on a node until resumed.
type pauseFault struct {
	*controlFault
	once    sync.Once
	resumed chan struct{}
}

func (p *pauseFault) Remove() {
	p.once.Do(func() { close(p.resumed) })
	p.controlFault.Remove()
}

// Pause implements cluster.NodePauser: requests to the node are held (connections
// stay open) until Resume, like a SIGSTOPped broker. It returns once a
// request sent to the node has been caught and held. A killed node is
// paused in name only (nothing reaches it) and not checked.
func (e *Provider) Pause(ctx context.Context, node int32) error {
	p, addr, check, err := e.pause(node)
	if err != nil || !check {
		return err
	}
	if err := verifyHeld(ctx, addr, p); err != nil {
		return fmt.Errorf("embedded cluster: pause node %d: %w", node, err)
	}
	return nil
}

func (e *Provider) pause(node int32) (p *pauseFault, addr string, check bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, err := e.nodeLocked("pause", node)
	if err != nil {
		return nil, "", false, err
	}
	if n.paused != nil {
		return n.paused, n.addr, n.down == nil, nil
	}
	p = &pauseFault{controlFault: e.nodeControlLocked(node), resumed: make(chan struct{})}
	p.install(func() (kmsg.Response, error, bool) {
		p.fake.SleepControl(func() { <-p.resumed })
		return nil, nil, false
	})
	n.paused = p
	return p, n.addr, n.down == nil, nil
}

// Resume implements cluster.NodePauser; it returns once a live node answers a
// request again.
func (e *Provider) Resume(ctx context.Context, node int32) error {
	e.mu.Lock()
	n, ok := e.nodes[node]
	if !ok {
		e.mu.Unlock()
		return fmt.Errorf("embedded cluster: resume: no node %d", node)
	}
	if n.paused != nil {
		n.paused.Remove()
	}
	n.paused = nil
	addr, live := n.addr, n.down == nil && e.fake != nil
	e.mu.Unlock()
	if !live {
		return nil
	}
	if err := verifyAnswers(ctx, addr); err != nil {
		return fmt.Errorf("embedded cluster: resume node %d: %w", node, err)
	}
	return nil
}

// MoveLeader implements cluster.LeaderMover.
func (e *Provider) MoveLeader(_ context.Context, topic string, partition, node int32) error {
	fake := e.Fake()
	if fake == nil {
		return errNotStarted
	}
	if err := fake.MoveTopicPartition(topic, partition, node); err != nil {
		return fmt.Errorf("embedded cluster: move %s/%d to node %d: %w", topic, partition, node, err)
	}
	if l := fake.LeaderFor(topic, partition); l != node {
		return fmt.Errorf("embedded cluster: moved %s/%d to node %d, but it is led by %d", topic, partition, node, l)
	}
	return nil
}

// ShuffleLeaders implements cluster.LeaderMover; it returns once every partition
// of the provider's topics has a bumped leader epoch (a new election, which
// may choose the same node).
func (e *Provider) ShuffleLeaders(context.Context) error {
	e.mu.Lock()
	fake, topics := e.fake, slices.Clone(e.topics)
	e.mu.Unlock()
	if fake == nil {
		return errNotStarted
	}
	before := epochs(fake, topics)
	fake.ShufflePartitionLeaders()
	if err := verifyBumped(before, epochs(fake, topics)); err != nil {
		return fmt.Errorf("embedded cluster: shuffle leaders: %w", err)
	}
	return nil
}

// The embedded provider implements these hooks; the compiler checks it.
var (
	_ cluster.Provider       = (*Provider)(nil)
	_ cluster.NodeKiller     = (*Provider)(nil)
	_ cluster.NodePauser     = (*Provider)(nil)
	_ cluster.LeaderMover    = (*Provider)(nil)
	_ cluster.RequestFaulter = (*Provider)(nil)
)
