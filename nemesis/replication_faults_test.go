package nemesis

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// fakeReplication is fakeBrokers with replication proxies.
type fakeReplication struct{ *fakeBrokers }

func (f fakeReplication) AddReplicationToxic(_ context.Context, n int32, name string, t kproxy.Toxic) error {
	return f.log("replication toxic %d %s %s %v", n, name, t.Kind, t.Latency)
}
func (f fakeReplication) HealReplicationToxics(context.Context) error {
	return f.log("heal replication toxics")
}

// The toxic goes on the leader's replication proxy, not the clients', and
// the op says so; the heal removes the replication toxics.
func TestReplicationToxicOnTheLeadersReplicationProxy(t *testing.T) {
	f := fakeReplication{newFakeBrokers()}
	fault := ReplicationToxic(f, targeting(f.fakeBrokers), TargetLeader, kproxy.Toxic{Kind: kproxy.Latency, Stream: "upstream",
		Latency: 300 * time.Millisecond, Jitter: 30 * time.Millisecond})
	ctx := context.Background()
	for _, step := range []func(context.Context) error{fault.Start, fault.Stop} {
		if err := step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := f.Calls(), []string{"replication toxic 2 kafkachaos latency 300ms", "heal replication toxics"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	d := fault.(Detailer).Detail().(map[string]any)
	if m, _ := d["mechanism"].(string); !strings.Contains(m, "replication proxies") || d["latency"] != "300ms" {
		t.Errorf("the op does not say it acts on the replication proxies: %v", d)
	}
	if bad := ReplicationToxic(f, targeting(f.fakeBrokers), TargetAll, kproxy.Toxic{Kind: "netem", Stream: "upstream"}); bad.Start(ctx) == nil {
		t.Error("a bad toxic started")
	}
}
