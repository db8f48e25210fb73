package embedded

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// A proxied embedded cluster advertises its proxies; a latency toxic
// slows a probe through one, a heal removes it, and a killed node behind
// its proxy is verified dead and comes back behind the same proxy, toxics
// kept.
func TestProxiedClusterKeepsItsProxiesOverKillAndRestart(t *testing.T) {
	ctx := context.Background()
	e := New()
	if err := e.Start(ctx, cluster.Spec{RunID: "proxy-test", Proxied: true, Topics: []cluster.TopicSpec{{Name: "t", Partitions: 1}}}); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(ctx)
	addr, err := e.proxies.set.Addr("n0")
	if err != nil || e.nodes[0].addr != addr {
		t.Fatalf("node 0 advertises %s, its proxy is %s (%v)", e.nodes[0].addr, addr, err)
	}
	slow := kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream", Latency: 200 * time.Millisecond}
	if err := e.AddToxic(ctx, 0, "slow", slow); err != nil {
		t.Fatal(err)
	}
	if err := e.Kill(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if own := e.proxies.own["n0"]; !strings.HasSuffix(own, fmt.Sprintf(":%d", e.ports.ports[0])) {
		t.Fatalf("node 0 listens at %s behind its proxy after the restart, want its leased port %d", own, e.ports.ports[0])
	}
	if rt, err := e.ProbeProxy(ctx, 0); err != nil || rt < 200*time.Millisecond {
		t.Fatalf("a probe after the restart took %v (%v): want the toxic still on the proxy", rt, err)
	}
	if err := e.HealToxics(ctx); err != nil {
		t.Fatal(err)
	}
	if rt, err := e.ProbeProxy(ctx, 0); err != nil || rt > 100*time.Millisecond {
		t.Fatalf("a probe after the heal took %v (%v)", rt, err)
	}
	if err := e.Healthy(ctx); err != nil {
		t.Fatalf("not healthy after kill, restart and heal: %v", err)
	}
}
