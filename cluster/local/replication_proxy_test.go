package local

import (
	"errors"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Without namespaces there is no bridge address for the proxies to listen
// on: the loopback fallback refuses them and starts none.
func TestLoopbackRefusesReplicationProxies(t *testing.T) {
	p := New(Options{})
	p.setNodes([]*node{{id: 1, ip: "127.0.0.1"}, {id: 2, ip: "127.0.0.1"}})
	if err := p.startReplicationProxies(); !errors.Is(err, errReplicationLoopback) || p.ReplicationProxied() {
		t.Errorf("replication proxies in loopback = %v (proxied %v), want errReplicationLoopback", err, p.ReplicationProxied())
	}
}

// A node with a replication proxy replicates over its REPLICATION
// listener, which advertises the proxy; the voters stay direct.
func TestServerPropertiesReplicationProxy(t *testing.T) {
	nodes := []*node{{id: 1, ip: "10.213.9.1", port: 9092, ctrlPort: 9093, replPort: replicationPort, replAddr: "10.213.9.254:41001"},
		{id: 2, ip: "10.213.9.2", port: 9092, ctrlPort: 9093, replPort: replicationPort, replAddr: "10.213.9.254:41002"}}
	props := serverProperties(nodes[0], nodes, "/data", nil)
	for _, want := range []string{
		"listeners=PLAINTEXT://10.213.9.1:9092,CONTROLLER://10.213.9.1:9093," + realbroker.ReplicationListener + "://10.213.9.1:9095\n",
		"advertised.listeners=PLAINTEXT://10.213.9.1:9092," + realbroker.ReplicationListener + "://10.213.9.254:41001\n",
		"inter.broker.listener.name=" + realbroker.ReplicationListener + "\n",
		"controller.quorum.voters=1@10.213.9.1:9093,2@10.213.9.2:9093\n",
	} {
		if !strings.Contains(props, want) {
			t.Errorf("server.properties lacks %q:\n%s", want, props)
		}
	}
}
