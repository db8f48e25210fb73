package realbroker

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// A node whose brokers replicate through proxies gets a REPLICATION
// listener that advertises its proxy and is the inter-broker listener; the
// clients and the admin client keep PLAINTEXT, the quorum CONTROLLER.
func TestPropertiesReplicationListener(t *testing.T) {
	self := Node{ID: 1, Host: "10.0.0.1", Port: 9092, ControllerPort: 9093, ReplicationPort: 9095, ReplicationAddr: "10.0.0.254:40002"}
	props := Properties(self, []Node{self}, "/data", map[string]string{"inter.broker.listener.name": "PLAINTEXT"})
	want := map[string]string{
		"listeners":                      "PLAINTEXT://10.0.0.1:9092,CONTROLLER://10.0.0.1:9093,REPLICATION://10.0.0.1:9095",
		"advertised.listeners":           "PLAINTEXT://10.0.0.1:9092,REPLICATION://10.0.0.254:40002",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,REPLICATION:PLAINTEXT",
		"inter.broker.listener.name":     "REPLICATION",
		"controller.quorum.voters":       "1@10.0.0.1:9093",
	}
	for k := range want {
		if got := props[k]; got != want[k] {
			t.Errorf("%s = %q, want %q", k, got, want[k])
		}
	}
}

// The replication proxies listen on the address given, forward to each
// node's upstream, take verified toxics apart from the clients' proxies,
// and heal on their own.
func TestReplicationProxies(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	c, _ := newFake(nil, 1, 2)
	t.Cleanup(c.Close)
	ups := map[int32]string{1: kc.ListenAddrs()[0], 2: kc.ListenAddrs()[1]}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.AddReplicationToxic(ctx, 1, "x", kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream", Latency: time.Millisecond}); err == nil ||
		!strings.Contains(err.Error(), "replicate directly") {
		t.Errorf("a toxic before the proxies started = %v, want an error saying the brokers replicate directly", err)
	}
	for _, host := range []string{"", "0.0.0.0", "bridge"} {
		if _, err := c.StartReplicationProxies(host, ups); err == nil {
			t.Errorf("listen host %q accepted, want an error", host)
		}
	}
	addrs, err := c.StartReplicationProxies("127.0.0.1", ups)
	if err != nil {
		t.Fatal(err)
	}
	if !c.ReplicationProxied() || len(addrs) != 2 || !strings.HasPrefix(addrs[1], "127.0.0.1:") || addrs[1] == addrs[2] {
		t.Fatalf("proxied %v, addresses %v: want two on 127.0.0.1", c.ReplicationProxied(), addrs)
	}
	if _, err := c.StartReplicationProxies("127.0.0.1", ups); err == nil {
		t.Errorf("a second start accepted, want an error")
	}
	if _, err := c.StartProxies(ups); err != nil {
		t.Fatal(err)
	}
	lat := kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream", Latency: 200 * time.Millisecond, Jitter: 10 * time.Millisecond}
	if err := c.AddReplicationToxic(ctx, 1, "kafkachaos", lat); err != nil {
		t.Fatalf("verified latency toxic on node 1's replication proxy: %v", err)
	}
	slow, err := kproxy.Probe(ctx, addrs[1])
	if err != nil || slow < 190*time.Millisecond {
		t.Errorf("a probe through node 1's replication proxy took %v (%v), want >= 190ms", slow, err)
	}
	// the clients' proxy of node 1 and node 2's replication proxy are untouched
	for name, probe := range map[string]func() (time.Duration, error){
		"client proxy 1":      func() (time.Duration, error) { return c.ProbeProxy(ctx, 1) },
		"replication proxy 2": func() (time.Duration, error) { return kproxy.Probe(ctx, addrs[2]) },
	} {
		if d, err := probe(); err != nil || d >= 150*time.Millisecond {
			t.Errorf("%s: probe took %v (%v), want no latency", name, d, err)
		}
	}
	if err := c.HealToxics(ctx); err != nil {
		t.Fatal(err)
	}
	if active, _ := c.repl.Active("r1"); len(active) != 1 {
		t.Errorf("healing the clients' toxics left the replication proxy with %v, want its toxic", active)
	}
	if err := c.HealReplicationToxics(ctx); err != nil {
		t.Fatal(err)
	}
	if d, err := fastestProbe(ctx, addrs[1]); err != nil || d >= 150*time.Millisecond {
		t.Errorf("after heal the fastest of 3 probes took %v (%v), want no latency", d, err)
	}
	c.Close()
	if c.ReplicationProxied() {
		t.Errorf("Close left the replication proxies")
	}
}

// Cuts by peer address are refused once the brokers replicate through
// proxies (they would not cut them); a heal (no cuts) still goes through.
func TestCutsRefusedThroughReplicationProxies(t *testing.T) {
	c, f := newFake(nil, 1, 2)
	t.Cleanup(c.Close)
	ctx := t.Context()
	if err := c.SetCuts(ctx, [][2]int32{{1, 2}}); err != nil {
		t.Fatalf("a cut before the proxies: %v", err)
	}
	if err := c.SetCuts(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartReplicationProxies("127.0.0.1", map[int32]string{1: "127.0.0.1:1", 2: "127.0.0.1:2"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetCuts(ctx, [][2]int32{{1, 2}}); !errors.Is(err, ErrCutsThroughProxies) {
		t.Errorf("a cut through replication proxies = %v, want ErrCutsThroughProxies", err)
	}
	if len(f.blocked[1]) > 0 || len(c.Cuts()) > 0 {
		t.Errorf("the refused cut was applied: blocked %v, cuts %v", f.blocked, c.Cuts())
	}
	if err := c.SetCuts(ctx, nil); err != nil {
		t.Errorf("a heal through replication proxies: %v", err)
	}
}

// fastestProbe is the fastest of three probes of addr: a probe on loaded
// cores can wait for the scheduler, which no toxic left behind explains.
func fastestProbe(ctx context.Context, addr string) (time.Duration, error) {
	best := time.Duration(math.MaxInt64)
	for range 3 {
		d, err := kproxy.Probe(ctx, addr)
		if err != nil {
			return d, err
		}
		best = min(best, d)
	}
	return best, nil
}
