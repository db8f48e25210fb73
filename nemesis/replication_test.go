package nemesis

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

func (f *fakeBrokers) CutReplication(_ context.Context, links [][2]int32) error {
	return f.log("cut-replication %v", links)
}
func (f *fakeBrokers) ReplicationPorts() (cut, kept []int) { return []int{9092}, []int{9093} }

func TestIsolateLeaderReplicationCutsLeaderFollowerPairsAndHeals(t *testing.T) {
	f := newFakeBrokers() // leader 2
	fault := realFault(t, f, RealSpec{Kind: RealIsolateLeaderReplication})
	ctx := context.Background()
	if err := fault.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second Stop is a no-op, not a second heal
		if err := fault.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := f.Calls(), []string{"cut-replication [[2 1] [2 3]]", "heal"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if start, stop := events(fault); start != "partition" || stop != "heal" {
		t.Errorf("events %s/%s", start, stop)
	}
	// The op must say what was cut and what was left up, as JSON readers
	// of the history see it.
	b, err := json.Marshal(fault.(Detailer).Detail())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"links":[[2,1],[2,3]]`, `"ports-cut":[9092]`, `"ports-kept":[9093]`, `"leader":2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("detail %s lacks %s", b, want)
		}
	}
}

func TestIsolateLeaderReplicationNeedsTheHook(t *testing.T) {
	f := newFakeBrokers()
	_, err := Real(Targeting{Provider: partitionOnly{f, f}}, RealSpec{Kind: RealIsolateLeaderReplication})
	if err == nil || !strings.Contains(err.Error(), "ReplicationCutter") {
		t.Errorf("provider without the hook: err %v, want it to name ReplicationCutter", err)
	}
}

// partitionOnly is a provider with the Partitioner hook and no other:
// embedding the interface promotes only Provider's methods.
type partitionOnly struct {
	cluster.Provider
	fb *fakeBrokers
}

func (p partitionOnly) Partition(ctx context.Context, c [][]int32) error {
	return p.fb.Partition(ctx, c)
}
func (p partitionOnly) Heal(ctx context.Context) error { return p.fb.Heal(ctx) }
