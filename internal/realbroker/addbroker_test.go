package realbroker

import (
	"strings"
	"testing"
)

// A joining broker takes its peer's configuration (defaults, overrides,
// quorum) with its own identity, one listener and the broker role alone,
// still naming the controller listener to reach the quorum.
func TestBrokerOnly(t *testing.T) {
	peerNodes := []Node{{ID: 1, Host: "10.0.0.1", Port: 9092, ControllerPort: 9093}, {ID: 2, Host: "10.0.0.2", Port: 9092, ControllerPort: 9093}}
	peer, err := ParseProperties(RenderProperties("peer", Properties(peerNodes[0], peerNodes, "/d1", map[string]string{"log.flush.interval.messages": "1"})))
	if err != nil {
		t.Fatal(err)
	}
	got, err := BrokerOnly(peer, Node{ID: 3, Host: "10.0.0.3", Port: 9092}, "/d3")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"process.roles": "broker", "node.id": "3", "listeners": "PLAINTEXT://10.0.0.3:9092",
		"advertised.listeners": "PLAINTEXT://10.0.0.3:9092", "log.dirs": "/d3", "log.flush.interval.messages": "1",
		"controller.quorum.voters": "1@10.0.0.1:9093,2@10.0.0.2:9093", "controller.listener.names": "CONTROLLER",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if peer["node.id"] != "1" || peer["process.roles"] != "broker,controller" {
		t.Errorf("the peer's configuration changed: %v", peer)
	}
	proxied := Properties(Node{ID: 1, Host: "h", Port: 1, ControllerPort: 2, ProxyPort: 3, ProxyAddr: "127.0.0.1:4"}, peerNodes, "/d", nil)
	if _, err := BrokerOnly(proxied, Node{ID: 3}, "/d3"); err == nil || !strings.Contains(err.Error(), "go through proxies") {
		t.Errorf("a peer with a proxied listener: %v, want refused", err)
	}
}

func TestParseProperties(t *testing.T) {
	got, err := ParseProperties("# comment\n! also\n\ncluster.id = abc=\nnode.id=1\n")
	if err != nil || len(got) != 2 || got["cluster.id"] != "abc=" || got["node.id"] != "1" {
		t.Errorf("ParseProperties = %v, %v", got, err)
	}
	if _, err := ParseProperties("a=1\nnot a property\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a line without '=': %v, want refused naming line 2", err)
	}
}
