package local

import (
	"errors"
	"net"
	"strconv"

	"github.com/kafkachaos/kafkachaos/cluster"
)

var _ cluster.ReplicationProxier = (*Provider)(nil) // a proxy per broker on the bridge's host address

// replicationPort is each namespaced node's REPLICATION listener.
const replicationPort = 9095

// errReplicationLoopback is why the loopback fallback refuses replication
// proxies: the harness's proxies must listen where the namespaces reach
// the harness (the bridge's host address), and without namespaces there is
// no bridge.
var errReplicationLoopback = errors.New("cluster/local: replication proxies need the nodes in network namespaces (root, not the loopback fallback): the proxies listen on the run's bridge address, which the loopback fallback has none of")

// startReplicationProxies puts a proxy on the bridge's host address in
// front of each node's replication listener; the nodes advertise them as
// their inter-broker listener (serverProperties), so every request one
// broker sends another crosses the bridge to the harness and back.
func (p *Provider) startReplicationProxies() error {
	if p.net == nil {
		return errReplicationLoopback
	}
	up := make(map[int32]string, len(p.nodes))
	for _, n := range p.nodes {
		n.replPort = replicationPort
		up[n.id] = net.JoinHostPort(n.ip, strconv.Itoa(n.replPort))
	}
	addrs, err := p.StartReplicationProxies(p.net.HostIP(), up)
	if err != nil {
		return err
	}
	for _, n := range p.nodes {
		n.replAddr = addrs[n.id]
	}
	return nil
}
